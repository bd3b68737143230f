-- A worker's skills by availability (prisma/schema.prisma WorkerSkill): the Workers page counts the
-- unavailable ones and lists them first without reading every row (issue 10 point 1).
CREATE INDEX "WorkerSkill_workerId_available_skill_idx" ON "WorkerSkill"("workerId", "available", "skill");
