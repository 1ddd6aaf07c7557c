import { expect, test } from "./fixtures";

// Browsers fetch the icons and the manifest without the session cookie (a manifest by default,
// a home-screen icon often before anyone signed in): they must be public, and the page must link them.

test("the icons and the manifest answer signed out, and the sign-in page links them", async ({ request }) => {
  const types: Record<string, RegExp> = {
    "/favicon.ico": /^image\/(x-icon|vnd\.microsoft\.icon)/,
    "/icon.svg": /^image\/svg\+xml/,
    "/apple-touch-icon.png": /^image\/png/,
    "/icon-192.png": /^image\/png/,
    "/icon-512.png": /^image\/png/,
    "/manifest.webmanifest": /^application\/manifest\+json/,
  };
  for (const [path, type] of Object.entries(types)) {
    const res = await request.get(path, { maxRedirects: 0 });
    expect(res.status(), path).toBe(200);
    expect(res.headers()["content-type"], path).toMatch(type);
  }
  const manifest = await (await request.get("/manifest.webmanifest")).json();
  expect(manifest.icons.map((i: { src: string }) => i.src)).toEqual(["/icon-192.png", "/icon-512.png"]);

  const head = await (await request.get("/signin")).text();
  for (const link of [
    'rel="icon" href="/favicon.ico"',
    'rel="icon" href="/icon.svg"',
    'rel="apple-touch-icon" href="/apple-touch-icon.png"',
    'rel="manifest" href="/manifest.webmanifest"',
  ])
    expect(head).toContain(`<link ${link}`);
});
