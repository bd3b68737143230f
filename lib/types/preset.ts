/** A named set of args saved for a skill and shared by everyone using the console (issue 3). */
export interface ArgPreset {
  id: string;
  skill: string;
  name: string;
  args: Record<string, unknown>;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}
