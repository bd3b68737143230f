-- AlterTable: a signature voided when its signer lost approver+ never counts again (issue 10 point 4).
ALTER TABLE "ApprovalSignature" ADD COLUMN "voidedAt" DATETIME;
ALTER TABLE "ApprovalSignature" ADD COLUMN "voidReason" TEXT;
