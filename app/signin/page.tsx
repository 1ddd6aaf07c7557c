import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { currentPrincipal } from "@/lib/auth/current";
import { SignInForm } from "@/components/signin/SignInForm";
import { icons } from "@/components/shell/icons";
import { OIDC_ERRORS, ssoIfConfigured, type OidcErrorCode } from "@/lib/auth/oidc";
import { safeNext } from "@/lib/auth/next-path";
import "@/components/signin/signin.css";

export const metadata: Metadata = { title: "Sign in" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function SignInPage({ searchParams }: Props) {
  const params = await searchParams;
  const next = safeNext(params.next);
  const errorCode =
    typeof params.error === "string" && params.error in OIDC_ERRORS ? (params.error as OidcErrorCode) : null;
  const sso = ssoIfConfigured();

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
        <p className="signin__lead">
          {sso
            ? `Use ${sso.displayName}, your email and password, or an access token.`
            : "Use your email and password, or an access token."}
        </p>
        {errorCode ? (
          <div className="form-error signin-error sso-error" role="alert" data-testid="sso-error" data-code={errorCode}>
            <p className="signin-error__title">Single sign-on did not sign you in</p>
            <p>{OIDC_ERRORS[errorCode]}</p>
          </div>
        ) : null}
        {sso ? (
          <>
            {/* A plain link: the provider's page is a full navigation, and it works before any script loads. */}
            <a
              className="btn btn--primary sso-button"
              href={`/api/auth/oidc/start?next=${encodeURIComponent(next)}`}
              data-testid="sso-sign-in"
            >
              Sign in with {sso.displayName}
            </a>
            <div className="signin-divider" role="separator" aria-label="or">
              <span aria-hidden="true">or</span>
            </div>
          </>
        ) : null}
        <SignInForm next={next} />
        <p className="signin__foot">
          First sign-in? <code>npm start</code> prints the admin&rsquo;s email and password.
        </p>
      </div>
    </main>
  );
}
