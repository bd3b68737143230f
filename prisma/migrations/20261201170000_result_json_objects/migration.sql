-- A call's result is served as stored, unparsed (lib/server/http/stored-json.ts), so every stored
-- result must be one JSON object; the console now checks that when a worker reports it. Results
-- stored before that check that are not one (only a buggy or hostile worker could report one) are
-- dropped here rather than served.
UPDATE "Call" SET "result" = NULL
WHERE "result" IS NOT NULL AND CASE WHEN json_valid("result") THEN json_type("result") <> 'object' ELSE 1 END;
