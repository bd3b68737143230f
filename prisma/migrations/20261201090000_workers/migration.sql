-- AlterTable
ALTER TABLE "Approval" ADD COLUMN "skillInput" TEXT;

-- AlterTable
ALTER TABLE "Call" ADD COLUMN "sandbox" TEXT;
ALTER TABLE "Call" ADD COLUMN "skillDigest" TEXT;
ALTER TABLE "Call" ADD COLUMN "target" TEXT;
ALTER TABLE "Call" ADD COLUMN "workerId" TEXT;
ALTER TABLE "Call" ADD COLUMN "workerName" TEXT;

-- CreateTable
CREATE TABLE "WorkerToken" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "labels" TEXT NOT NULL DEFAULT '[]',
    "tokenHash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "local" BOOLEAN NOT NULL DEFAULT false,
    "createdBy" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" DATETIME,
    "revokedAt" DATETIME
);

-- CreateTable
CREATE TABLE "Worker" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "tokenId" TEXT NOT NULL,
    "labels" TEXT NOT NULL DEFAULT '[]',
    "host" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "pid" INTEGER,
    "concurrency" INTEGER NOT NULL,
    "sandbox" TEXT NOT NULL DEFAULT '{}',
    "registeredAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastSeenAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "stoppedAt" DATETIME,
    CONSTRAINT "Worker_tokenId_fkey" FOREIGN KEY ("tokenId") REFERENCES "WorkerToken" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "WorkerSkill" (
    "workerId" TEXT NOT NULL,
    "skill" TEXT NOT NULL,
    "digest" TEXT,
    "available" BOOLEAN NOT NULL DEFAULT true,
    "reason" TEXT,

    PRIMARY KEY ("workerId", "skill"),
    CONSTRAINT "WorkerSkill_workerId_fkey" FOREIGN KEY ("workerId") REFERENCES "Worker" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "WorkerToken_tokenHash_key" ON "WorkerToken"("tokenHash");

-- CreateIndex
CREATE INDEX "Worker_name_idx" ON "Worker"("name");

-- CreateIndex
CREATE INDEX "Worker_lastSeenAt_idx" ON "Worker"("lastSeenAt");

-- CreateIndex
CREATE INDEX "WorkerSkill_skill_digest_idx" ON "WorkerSkill"("skill", "digest");

-- CreateIndex
CREATE INDEX "Call_status_createdAt_idx" ON "Call"("status", "createdAt");

-- CreateIndex
CREATE INDEX "Call_workerId_status_idx" ON "Call"("workerId", "status");

