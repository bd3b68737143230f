import type { ApiOperation } from "./api-operation";
import { ADMIN_OPERATIONS } from "./admin-operations";
import { CONSOLE_OPERATIONS } from "./console-operations";
import { INTEGRATION_OPERATIONS } from "./integration-operations";

/**
 * Every operation of the console's HTTP API, the table `GET /api/v1/openapi.json` is generated from
 * (DESIGN.md "Integrations": the document describes every route).
 *
 * Describing a new route is one step, in one place: add an ApiOperation for each method its
 * `route.ts` exports to one of the lists here (or a new list of your area, concatenated below) —
 * method, OpenAPI path (`[id]` → `{id}`), tag, summary, access, query parameters, and as `body.schema`
 * the very lib/validation schema the route checks its body with (checkRequestBody, parseRequestBody).
 * tests/api/openapi.test.ts walks app/api/**\/route.ts and fails, naming the route, until you do.
 */
export const API_OPERATIONS: readonly ApiOperation[] = [...CONSOLE_OPERATIONS, ...ADMIN_OPERATIONS, ...INTEGRATION_OPERATIONS];

/**
 * Route folders under app/ that are no API of their own and so are not described: the catch-all that
 * answers any other `/api/…` path with 404 `not_found` in the error envelope.
 */
export const UNDESCRIBED_ROUTES: readonly string[] = ["/api/{path}"];
