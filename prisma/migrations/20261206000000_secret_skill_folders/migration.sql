-- A secret is given to a skill in one folder (DESIGN.md "Skill secrets": injected only into the named skills):
-- another skill that takes the name is not given it.
ALTER TABLE "Secret" ADD COLUMN "skillFolders" TEXT NOT NULL DEFAULT '{}';
