"use client";

import { useQuery } from "@tanstack/react-query";
import type { ApiPath } from "./fetch-json";
import { fetchJson } from "./fetch-json";

/**
 * One level-3 resource of a native skill as `GET /api/v1/skills/{name}/resources/{path}?format=json`
 * describes it: `text` is the file's UTF-8 text, or null for a binary file or one over the size limit
 * (then `description` says which, e.g. "binary file, 2048 bytes (image/png)"). `size` is in bytes.
 */
export interface SkillResource {
  path: string;
  size: number;
  mediaType: string;
  binary: boolean;
  truncated: boolean;
  text: string | null;
  description: string;
}

/**
 * The raw URL of resource `path` (relative to the skill's folder, e.g. `scripts/analyze.py`) of skill
 * `name`: each path segment is URL-encoded on its own so the `/` separators stay. The server answers the
 * file itself there (text/plain or an attachment), which is what the "Download" link points at.
 */
export function skillResourceUrl(name: string, path: string): ApiPath {
  const encodedPath = path.split("/").map(encodeURIComponent).join("/");
  return `/api/v1/skills/${encodeURIComponent(name)}/resources/${encodedPath}`;
}

/**
 * Resource `path` of native skill `name` in JSON form (see SkillResource); disabled while `path` is null
 * (nothing picked yet). Fails with ApiError `not_found` for a path that is not a resource of the skill.
 * Keys sit under `["skills", …]` so a loader reload that invalidates the skills refreshes them too.
 */
export function useSkillResource(name: string, path: string | null) {
  return useQuery({
    queryKey: ["skills", "resource", name, path] as const,
    enabled: path !== null,
    queryFn: ({ signal }) =>
      fetchJson<{ resource: SkillResource }>(`${skillResourceUrl(name, path ?? "")}?format=json`, { signal }).then((body) => body.resource),
    staleTime: 30_000,
  });
}
