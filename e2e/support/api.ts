import { expect } from "@playwright/test";
import { createIndexwrightClient, unwrap, type IndexwrightClient, type operations } from "../../lib/client";
import { E2E_TOKEN } from "../fixtures";
import { E2E_PORTS } from "../services/settings";
import { recordingFetch } from "./contract";

// Seeding and reading through the typed client (lib/client), as the CLI and scripts do: a path,
// body or answer that drifts from the OpenAPI document fails to compile here instead of failing
// a journey halfway. Specs that send malformed requests on purpose keep raw requests.

/** The app the e2e web server runs (playwright.config.ts starts it on the same port). */
export const APP_URL = `http://127.0.0.1:${E2E_PORTS.app}`;

/** A typed client against the e2e app, authorised by `token` (the bootstrap token by default). */
export function apiClient(token: string = E2E_TOKEN): IndexwrightClient {
  return createIndexwrightClient({ baseUrl: APP_URL, token, fetch: recordingFetch });
}

export type PublishBody = operations["publishVersion"]["requestBody"]["content"]["application/json"];

/** Publishes a version (Markdown unless the body says otherwise); returns the 202 answer. */
export async function publishVersion(
  tenant: string,
  key: string,
  body: Partial<PublishBody> & { content: string },
  token?: string,
) {
  return unwrap(
    apiClient(token).POST("/api/v1/tenants/{tenant}/documents/{key}/versions", {
      params: { path: { tenant, key } },
      body: { title: key, contentType: "text/markdown", ...body },
    }),
  );
}

/** A document with its versions, as GET /api/v1/tenants/{tenant}/documents/{key} answers. */
export async function getDocument(tenant: string, key: string, token?: string) {
  return unwrap(
    apiClient(token).GET("/api/v1/tenants/{tenant}/documents/{key}", { params: { path: { tenant, key } } }),
  );
}

/** Waits until the document is SEARCHABLE at `version` (any version when omitted). */
export async function waitSearchable(tenant: string, key: string, version?: number, timeout = 90_000): Promise<void> {
  await expect
    .poll(
      async () => {
        const d = await getDocument(tenant, key);
        return version === undefined ? d.state : `${d.state}@v${d.searchVersion}`;
      },
      { timeout, intervals: [250, 500, 1000] },
    )
    .toBe(version === undefined ? "SEARCHABLE" : `SEARCHABLE@v${version}`);
}

/** The document, or null with the status when the API answers with an error (a 404 before the first publish lands). */
export async function readDocument(tenant: string, key: string, token?: string) {
  const { data, response } = await apiClient(token).GET("/api/v1/tenants/{tenant}/documents/{key}", {
    params: { path: { tenant, key } },
  });
  return { doc: response.ok && data ? data : null, status: response.status };
}

export type CreateUserBody = operations["createUser"]["requestBody"]["content"]["application/json"];

/** Creates a dashboard user (POST /api/v1/admin/users, 201). */
export async function createUser(body: CreateUserBody, token?: string) {
  return unwrap(apiClient(token).POST("/api/v1/admin/users", { body }));
}
