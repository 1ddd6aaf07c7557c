// The webhooks page's fetchers and React Query hooks (client components only), through the
// dashboard's typed client: the answers' types are the ones the API documents (./schemas, via the
// generated OpenAPI types), so the page and the contract agree.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import type { paths, Schemas } from "../client";
import { api } from "../ui/api";
import type { newEndpointBody, patchEndpointBody } from "./schemas";

export type Endpoint = Schemas["WebhookEndpoint"];
export type EndpointWithSecret = Schemas["WebhookEndpointWithSecret"];
export type Delivery = Schemas["WebhookDelivery"];

export const webhookKeys = {
  all: ["webhooks"] as const,
  endpoints: ["webhooks", "endpoints"] as const,
  deliveries: (id: string) => ["webhooks", "deliveries", id] as const,
};

const endpoint = (id: string) => ({ path: { id } });
// The forms hold event types as strings; the server checks them against the list.
type NewEndpoint = NonNullable<paths["/api/v1/admin/webhooks"]["post"]["requestBody"]>["content"]["application/json"];
type EndpointPatch = NonNullable<
  paths["/api/v1/admin/webhooks/{id}"]["patch"]["requestBody"]
>["content"]["application/json"];

export function useEndpoints() {
  return useQuery({
    queryKey: webhookKeys.endpoints,
    queryFn: async ({ signal }) => (await api.GET("/api/v1/admin/webhooks", { signal })).data!.items,
    refetchInterval: 5000,
  });
}

export function useDeliveries(endpointId: string | null) {
  return useQuery({
    queryKey: webhookKeys.deliveries(endpointId ?? ""),
    enabled: endpointId !== null,
    queryFn: async ({ signal }) =>
      (
        await api.GET("/api/v1/admin/webhooks/{id}/deliveries", {
          params: { ...endpoint(endpointId!), query: { limit: 50 } },
          signal,
        })
      ).data!,
    // The log moves while deliveries are retried: keep it current without a reload.
    refetchInterval: 2000,
  });
}

function useWebhookMutation<I, R>(fn: (input: I) => Promise<R>) {
  const qc = useQueryClient();
  return useMutation({ mutationFn: fn, onSuccess: () => void qc.invalidateQueries({ queryKey: webhookKeys.all }) });
}

export function useCreateEndpoint() {
  return useWebhookMutation(
    async (body: z.input<typeof newEndpointBody>) =>
      (await api.POST("/api/v1/admin/webhooks", { body: body as NewEndpoint })).data!,
  );
}

export function useUpdateEndpoint() {
  return useWebhookMutation(
    async ({ id, patch }: { id: string; patch: z.input<typeof patchEndpointBody> }) =>
      (await api.PATCH("/api/v1/admin/webhooks/{id}", { params: endpoint(id), body: patch as EndpointPatch })).data!,
  );
}

export function useRotateSecret() {
  return useWebhookMutation(
    async (id: string) => (await api.POST("/api/v1/admin/webhooks/{id}/rotate-secret", { params: endpoint(id) })).data!,
  );
}

export function useDeleteEndpoint() {
  return useWebhookMutation(
    async (id: string) => (await api.DELETE("/api/v1/admin/webhooks/{id}", { params: endpoint(id) })).data!,
  );
}

export function useRedeliver() {
  return useWebhookMutation(
    async ({ endpointId, deliveryId }: { endpointId: string; deliveryId: string }) =>
      (
        await api.POST("/api/v1/admin/webhooks/{id}/deliveries/{deliveryId}/redeliver", {
          params: { path: { id: endpointId, deliveryId } },
          body: {},
        })
      ).data!,
  );
}
