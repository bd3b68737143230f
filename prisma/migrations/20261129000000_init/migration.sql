-- CreateTable
CREATE TABLE "Call" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "skill" TEXT NOT NULL,
    "skillKind" TEXT NOT NULL DEFAULT 'subprocess',
    "persona" TEXT,
    "requestedBy" TEXT NOT NULL,
    "args" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "result" TEXT,
    "exitCode" INTEGER,
    "error" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" DATETIME,
    "endedAt" DATETIME,
    "durationMs" INTEGER,
    "ownerId" TEXT,
    "leaseUntil" DATETIME,
    "pgid" INTEGER,
    "procStart" TEXT,
    "host" TEXT,
    "bootId" TEXT,
    "cancelRequestedAt" DATETIME,
    "stderrBytes" INTEGER NOT NULL DEFAULT 0,
    "stderrTruncated" BOOLEAN NOT NULL DEFAULT false,
    "eventCount" INTEGER NOT NULL DEFAULT 0
);

-- CreateTable
CREATE TABLE "CallEvent" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "callId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "at" DATETIME NOT NULL,
    "stream" TEXT NOT NULL,
    "line" TEXT NOT NULL,
    CONSTRAINT "CallEvent_callId_fkey" FOREIGN KEY ("callId") REFERENCES "Call" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "Call_skill_createdAt_idx" ON "Call"("skill", "createdAt");

-- CreateIndex
CREATE INDEX "Call_status_idx" ON "Call"("status");

-- CreateIndex
CREATE INDEX "Call_createdAt_idx" ON "Call"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "CallEvent_callId_seq_key" ON "CallEvent"("callId", "seq");

