"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { ArgPreset } from "@/lib/types/preset";
import { fetchJson, type ApiPath } from "./fetch-json";
import { queryKeys } from "./query-keys";

function presetsPath(skill: string): ApiPath {
  return `/api/v1/skills/${encodeURIComponent(skill)}/presets`;
}

function presetPath(skill: string, id: string): ApiPath {
  return `${presetsPath(skill)}/${encodeURIComponent(id)}`;
}

/** The saved arg presets of `skill` (`GET /api/v1/skills/{name}/presets`), sorted by name by the server. */
export function usePresets(skill: string) {
  return useQuery({
    queryKey: queryKeys.presets.list(skill),
    queryFn: ({ signal }) => fetchJson<{ presets: ArgPreset[] }>(presetsPath(skill), { signal }).then((body) => body.presets),
  });
}

/** What saving a new preset takes: its name and args. */
export interface CreatePresetInput {
  name: string;
  args: Record<string, unknown>;
}

/** What changing a preset takes: its id and the fields to change (name, args or both). */
export interface UpdatePresetInput {
  id: string;
  name?: string;
  args?: Record<string, unknown>;
}

/**
 * The three writes of a skill's presets, each refreshing the list when it settles:
 * `create` (`POST …/presets`, rejects with ApiError `invalid_args` — checked like a call's args — or
 * `conflict` when the name is taken), `update` (`PUT …/presets/{id}`, `conflict`, `not_found`) and
 * `remove` (`DELETE …/presets/{id}`, `not_found`). Each resolves to the ArgPreset written or deleted.
 */
export function usePresetMutations(skill: string) {
  const queryClient = useQueryClient();
  const onSettled = () => queryClient.invalidateQueries({ queryKey: queryKeys.presets.list(skill) });
  const create = useMutation({
    mutationFn: (input: CreatePresetInput) =>
      fetchJson<{ preset: ArgPreset }>(presetsPath(skill), { method: "POST", body: input }).then((body) => body.preset),
    onSettled,
  });
  const update = useMutation({
    mutationFn: ({ id, ...fields }: UpdatePresetInput) =>
      fetchJson<{ preset: ArgPreset }>(presetPath(skill, id), { method: "PUT", body: fields }).then((body) => body.preset),
    onSettled,
  });
  const remove = useMutation({
    mutationFn: (id: string) =>
      fetchJson<{ preset: ArgPreset }>(presetPath(skill, id), { method: "DELETE" }).then((body) => body.preset),
    onSettled,
  });
  return { create, update, remove };
}
