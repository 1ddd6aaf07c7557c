// Calls an App Router route module's handler directly, as a client of the API would: JSON body,
// a bearer token (the file's bootstrap token unless another is given), the host the origin check
// expects. Answers the status and the parsed body.
export type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
export type Mod = Record<string, Handler>;
export type CallOptions = { body?: unknown; params?: Record<string, string>; token?: string; query?: string };

export function routeCaller(bootstrapToken: string, host = "dash.local") {
  return async function call(mod: Mod, method: string, opts: CallOptions = {}) {
    const res = await mod[method](
      new Request(`http://${host}/api/x${opts.query ?? ""}`, {
        method,
        headers: {
          host,
          "content-type": "application/json",
          authorization: `Bearer ${opts.token ?? bootstrapToken}`,
        },
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      }),
      { params: Promise.resolve(opts.params ?? {}) },
    );
    return {
      status: res.status,
      body: (await res.json().catch(() => null)) as Record<string, unknown> & { error?: { code: string } },
    };
  };
}
