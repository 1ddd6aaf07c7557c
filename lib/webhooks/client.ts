// The webhooks page's fetchers and React Query hooks (client components only). Answers are read
// with the same zod schemas the API documents (./schemas), so the page and the contract agree.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { parse, request } from "../ui/api";
import { webhookDeliveryList, webhookEndpoint, webhookEndpointDeleted, webhookEndpointList, webhookEndpointWithSecret, webhookDelivery } from "./schemas";
import type { newEndpointBody, patchEndpointBody } from "./schemas";

export type Endpoint = z.infer<typeof webhookEndpoint>;
export type EndpointWithSecret = z.infer<typeof webhookEndpointWithSecret>;
export type Delivery = z.infer<typeof webhookDelivery>;

const seg = encodeURIComponent;
const BASE = "/api/v1/admin/webhooks";

export const webhookKeys = {
  all: ["webhooks"] as const,
  endpoints: ["webhooks", "endpoints"] as const,
  deliveries: (id: string) => ["webhooks", "deliveries", id] as const,
};

export function useEndpoints() {
  return useQuery({
    queryKey: webhookKeys.endpoints,
    queryFn: async ({ signal }) => parse(webhookEndpointList, (await request(BASE, { signal })).json, "webhook endpoint list").items,
    refetchInterval: 5000,
  });
}

export function useDeliveries(endpointId: string | null) {
  return useQuery({
    queryKey: webhookKeys.deliveries(endpointId ?? ""),
    enabled: endpointId !== null,
    queryFn: async ({ signal }) => parse(webhookDeliveryList, (await request(`${BASE}/${seg(endpointId!)}/deliveries?limit=50`, { signal })).json, "delivery log"),
    // The log moves while deliveries are retried: keep it current without a reload.
    refetchInterval: 2000,
  });
}

function useWebhookMutation<I, R>(fn: (input: I) => Promise<R>) {
  const qc = useQueryClient();
  return useMutation({ mutationFn: fn, onSuccess: () => void qc.invalidateQueries({ queryKey: webhookKeys.all }) });
}

export function useCreateEndpoint() {
  return useWebhookMutation(async (body: z.input<typeof newEndpointBody>) => parse(webhookEndpointWithSecret, (await request(BASE, { method: "POST", body })).json, "new endpoint"));
}

export function useUpdateEndpoint() {
  return useWebhookMutation(async ({ id, patch }: { id: string; patch: z.input<typeof patchEndpointBody> }) =>
    parse(webhookEndpoint, (await request(`${BASE}/${seg(id)}`, { method: "PATCH", body: patch })).json, "endpoint update"),
  );
}

export function useRotateSecret() {
  return useWebhookMutation(async (id: string) => parse(webhookEndpointWithSecret, (await request(`${BASE}/${seg(id)}/rotate-secret`, { method: "POST" })).json, "rotated secret"));
}

export function useDeleteEndpoint() {
  return useWebhookMutation(async (id: string) => parse(webhookEndpointDeleted, (await request(`${BASE}/${seg(id)}`, { method: "DELETE" })).json, "endpoint removal"));
}

export function useRedeliver() {
  return useWebhookMutation(async ({ endpointId, deliveryId }: { endpointId: string; deliveryId: string }) =>
    parse(webhookDelivery, (await request(`${BASE}/${seg(endpointId)}/deliveries/${seg(deliveryId)}/redeliver`, { method: "POST", body: {} })).json, "redelivery"),
  );
}
