"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { signOut } from "@/lib/ui/api";
import { useToast } from "../Toast";
import { icons } from "./icons";

export function SignOutButton() {
  const router = useRouter();
  const queryClient = useQueryClient();
  const toast = useToast();
  const [busy, setBusy] = useState(false);

  async function onClick() {
    setBusy(true);
    try {
      await signOut();
    } catch {
      // Even if the request failed, leave: the sign-in page is the right place to recover.
    }
    // Drop every cached answer and notice of this session before anyone else signs in on this tab.
    queryClient.clear();
    toast.clear();
    router.replace("/signin");
  }

  return (
    <button
      type="button"
      className="btn btn--ghost btn--sm"
      onClick={onClick}
      disabled={busy}
      aria-busy={busy || undefined}
      data-testid="sign-out"
    >
      {icons.signOut}
      <span>{busy ? "Signing out…" : "Sign out"}</span>
    </button>
  );
}
