import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { currentPrincipal } from "@/lib/auth/current";
import { SignInForm } from "@/components/signin/SignInForm";
import { icons } from "@/components/shell/icons";

export const metadata: Metadata = { title: "Sign in" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/** Only same-origin paths are followed after sign-in (no "//evil.example" or absolute URLs). */
function safeNext(raw: string | string[] | undefined): string {
  const v = Array.isArray(raw) ? raw[0] : raw;
  if (!v || !v.startsWith("/") || v.startsWith("//") || v.startsWith("/\\") || v.startsWith("/signin")) return "/overview";
  return v;
}

export default async function SignInPage({ searchParams }: Props) {
  const next = safeNext((await searchParams).next);

  let signedIn = false;
  try {
    signedIn = (await currentPrincipal()) !== null;
  } catch {
    signedIn = false; // a broken cookie just means "sign in again"
  }
  if (signedIn) redirect(next);

  return (
    <main className="signin" id="main">
      <div className="signin__card">
        <div className="signin__brand">
          <span className="brand__mark brand__mark--light">{icons.logo}</span>
          <span>Indexwright</span>
        </div>
        <h1 className="signin__title">Sign in</h1>
        <p className="signin__lead">Use your email and password, or an access token.</p>
        <SignInForm next={next} />
        <p className="signin__foot">
          First sign-in? <code>npm start</code> prints the admin&rsquo;s email and password.
        </p>
      </div>
    </main>
  );
}
