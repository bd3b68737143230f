-- "Call"("status", "createdAt") serves every lookup by status alone: the narrower index only cost a write per status change.
DROP INDEX "Call_status_idx";
