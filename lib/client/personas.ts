"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { OngridPersonaFile, OngridPersonaImportResult } from "@/lib/types/ongrid";
import type { Persona } from "@/lib/types/persona";
import { ApiError } from "./api-error";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

/** A persona as the create and replace forms send it: the YAML fields, without the times. */
export type PersonaDraft = Omit<Persona, "createdAt" | "updatedAt">;

/** What `POST /api/v1/personas/import` answers: the stored personas and which names were new or replaced. */
export interface PersonaImportResult {
  personas: Persona[];
  created: string[];
  replaced: string[];
}

/** Where the whole persona list downloads as YAML (`GET /api/v1/personas/export`). */
export const PERSONAS_EXPORT_PATH = "/api/v1/personas/export";

/** The `{persona, field}` an API refusal of a persona names in its details, or null. */
export function personaErrorField(error: unknown): string | null {
  if (!(error instanceof ApiError) || typeof error.details !== "object" || error.details === null) return null;
  const field = (error.details as { field?: unknown }).field;
  return typeof field === "string" ? field : null;
}

function useRefreshPersonas() {
  const queryClient = useQueryClient();
  // The skills list may be filtered by persona, so it changes with the personas.
  return () => Promise.all([queryClient.invalidateQueries({ queryKey: queryKeys.personas.all }), queryClient.invalidateQueries({ queryKey: queryKeys.skills.all })]);
}

/**
 * Saves a persona from the form: `POST /api/v1/personas` when `replacing` is absent, else
 * `PUT /api/v1/personas/{replacing}`. Resolves to the stored persona; rejects with ApiError (400 naming
 * the field in details, 409 taken name, 403 not an admin). Refreshes the persona list on success.
 */
export function useSavePersona() {
  const refresh = useRefreshPersonas();
  return useMutation({
    mutationFn: ({ draft, replacing }: { draft: PersonaDraft; replacing?: string }) =>
      replacing === undefined
        ? fetchJson<{ persona: Persona }>("/api/v1/personas", { method: "POST", body: draft }).then((body) => body.persona)
        : fetchJson<{ persona: Persona }>(`/api/v1/personas/${encodeURIComponent(replacing)}`, { method: "PUT", body: draft }).then((body) => body.persona),
    onSuccess: refresh,
  });
}

/** Deletes a persona (`DELETE /api/v1/personas/{name}`); rejects with ApiError 409 for the default persona or one tokens use. */
export function useDeletePersona() {
  const refresh = useRefreshPersonas();
  return useMutation({
    mutationFn: (name: string) => fetchJson<{ persona: Persona }>(`/api/v1/personas/${encodeURIComponent(name)}`, { method: "DELETE" }).then((body) => body.persona),
    onSuccess: refresh,
  });
}

/**
 * Sends a YAML document to `POST /api/v1/personas/import` (as `text/yaml`). Resolves to the import's
 * result; rejects with ApiError carrying the server's message (400 naming the persona and field, 413,
 * 403) — nothing was changed then. Refreshes the persona list on success.
 */
export function useImportPersonas() {
  const refresh = useRefreshPersonas();
  return useMutation({ mutationFn: postPersonasYaml, onSuccess: refresh });
}

async function postPersonasYaml(text: string): Promise<PersonaImportResult> {
  let response: Response;
  try {
    response = await fetch("/api/v1/personas/import", { method: "POST", headers: { accept: "application/json", "content-type": "text/yaml; charset=utf-8" }, body: text, cache: "no-store" });
  } catch {
    throw new ApiError(0, "network", "The console did not answer. Is the server running?");
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new ApiError(response.status, "bad_response", `Unexpected answer from the import (HTTP ${response.status}, not JSON).`);
  }
  if (!response.ok) {
    const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } }).error;
    if (error && typeof error.code === "string" && typeof error.message === "string") throw new ApiError(response.status, error.code as ApiError["code"], error.message, error.details);
    throw new ApiError(response.status, "bad_response", `HTTP ${response.status} from the import without an error body.`);
  }
  return body as PersonaImportResult;
}

/**
 * Previews or imports ongrid persona `.md` files (`POST /api/v1/personas/import/ongrid` `{files, save}`;
 * DESIGN.md "Integrations"). Resolves to the mapping (`saved` false) or the import (`saved` true, the
 * persona list then refreshed); rejects with ApiError (400 naming the file and field, 403 not an
 * admin) — nothing was stored then.
 */
export function useOngridPersonaImport() {
  const refresh = useRefreshPersonas();
  return useMutation({
    mutationFn: (input: { files: OngridPersonaFile[]; save: boolean }) => fetchJson<OngridPersonaImportResult>("/api/v1/personas/import/ongrid", { method: "POST", body: input }),
    onSuccess: (result) => (result.saved ? refresh() : undefined),
  });
}
