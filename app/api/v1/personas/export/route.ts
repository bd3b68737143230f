import { apiRoute } from "@/lib/server/http/api-route";
import { exportPersonasYaml } from "@/lib/server/personas/export-personas";

/**
 * `GET /api/v1/personas/export` (viewer and above) → `text/yaml`: every persona as a YAML list, the
 * format `POST /api/v1/personas/import` reads; offered as the download `personas.yaml`.
 */
export const GET = apiRoute(async () => {
  return new Response(await exportPersonasYaml(), {
    headers: { "content-type": "text/yaml; charset=utf-8", "content-disposition": 'attachment; filename="personas.yaml"', "cache-control": "no-store" },
  });
});
