"use client";

import "@/lib/zod-jitless";
import { useRouter } from "next/navigation";
import { useState, type ReactNode } from "react";
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { ApiError } from "@/lib/ui/api";
import { shouldRetry } from "@/lib/ui/hooks";
import { ToastProvider } from "@/components/Toast";

function makeClient(onError: (error: unknown) => void): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({ onError }),
    mutationCache: new MutationCache({ onError }),
    defaultOptions: {
      queries: {
        retry: shouldRetry,
        staleTime: 1_000,
        refetchOnWindowFocus: true,
      },
      mutations: { retry: false },
    },
  });
}

export function Providers({ children }: { children: ReactNode }) {
  // The App Router instance is stable for the life of the page, so the closure below may keep it.
  const router = useRouter();

  // One client per mount of the root layout: isolated per server render, kept for the browser session.
  const [client] = useState(() =>
    makeClient((error) => {
      // A 401 from a data route means the session expired: sign in again, then come back here.
      if (!(error instanceof ApiError) || !error.isUnauthorized) return;
      if (typeof window === "undefined" || window.location.pathname.startsWith("/signin")) return;
      const next = window.location.pathname + window.location.search;
      router.replace(`/signin?next=${encodeURIComponent(next)}`);
    }),
  );

  return (
    <QueryClientProvider client={client}>
      <ToastProvider>{children}</ToastProvider>
    </QueryClientProvider>
  );
}
