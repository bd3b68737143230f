-- Skill packs (DESIGN.md "Skill packs", issue 13): every staged version of a pack, and the second
-- admin's signature an enabling of a dangerous skill waits for.
-- CreateTable
CREATE TABLE "Pack" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "status" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "commit" TEXT,
    "digest" TEXT NOT NULL,
    "digestList" TEXT NOT NULL,
    "signedBy" TEXT,
    "skills" TEXT NOT NULL,
    "previousId" TEXT,
    "stagedBy" TEXT NOT NULL,
    "stagedById" TEXT,
    "enabledAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "PackApproval" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "packId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "digest" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "requestedBy" TEXT NOT NULL,
    "requesterId" TEXT NOT NULL,
    "decidedBy" TEXT,
    "deciderId" TEXT,
    "reason" TEXT,
    "expiresAt" DATETIME NOT NULL,
    "decidedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "Pack_name_status_idx" ON "Pack"("name", "status");

-- CreateIndex
CREATE INDEX "Pack_createdAt_idx" ON "Pack"("createdAt");

-- CreateIndex
CREATE INDEX "PackApproval_packId_status_idx" ON "PackApproval"("packId", "status");

-- CreateIndex
CREATE INDEX "PackApproval_status_createdAt_idx" ON "PackApproval"("status", "createdAt");
