-- Args (and digest inputs) too long to keep in their row, in parts (prisma/schema.prisma CallPayload).
CREATE TABLE "CallPayload" (
    "callId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "part" INTEGER NOT NULL,
    "text" TEXT NOT NULL,

    PRIMARY KEY ("callId", "kind", "part")
);
