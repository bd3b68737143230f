-- Skill secrets (DESIGN.md "Skill secrets", issue 12 point 2): values sealed with AES-256-GCM, never served.
-- CreateTable
CREATE TABLE "Secret" (
    "name" TEXT NOT NULL,
    "ciphertext" TEXT NOT NULL,
    "keyId" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "skills" TEXT NOT NULL DEFAULT '[]',
    "createdBy" TEXT NOT NULL,
    "updatedBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Secret_pkey" PRIMARY KEY ("name")
);

