import { z } from "zod";

/** The length rule for every password a person sets: the admin API and INDEXWRIGHT_ADMIN_PASSWORD alike. */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 500;

/** Sign-in with an API token, or with an email and password. */
export const signInBody = z.union([
  z.object({ token: z.string().min(1).max(500) }).strict(),
  // Only the shape of an address: the account is looked up, not created, and the bootstrap admin's
  // default admin@localhost has no dot in its domain, which an RFC-style email check refuses.
  z
    .object({
      email: z
        .string()
        .trim()
        .max(320)
        .regex(/^[^\s@]+@[^\s@]+$/, "expected an email address"),
      password: z.string().min(1).max(500),
    })
    .strict(),
]);
