-- A dual-sign call is bound to the secrets given to its skill when it was requested ({name: fingerprint}):
-- approved under one value, it never runs with another (DESIGN.md "Skill secrets").
ALTER TABLE "Approval" ADD COLUMN "secrets" TEXT;
