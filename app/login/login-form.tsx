"use client";

import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { isApiError } from "@/lib/client/api-error";
import { fetchJson } from "@/lib/client/fetch-json";
import type { ConsoleUser } from "@/lib/types/identity";

/** What the person is told when the server refused the sign-in. */
function failureMessage(error: unknown): { title: string; text?: string } {
  if (isApiError(error, "unauthenticated")) return { title: "Wrong email or password." };
  if (isApiError(error, "rate_limited")) {
    const seconds = (error.details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
    return {
      title: "Too many failed sign-ins.",
      text: typeof seconds === "number" ? `Try again in ${seconds} s.` : error.message,
    };
  }
  if (isApiError(error, "bad_request")) return { title: "Check the form.", text: error.message };
  return { title: "Signing in failed.", text: error instanceof Error ? error.message : undefined };
}

/**
 * The sign-in form (`POST /api/v1/auth/login` `{email, password}`, same origin, so the browser sends
 * Origin): email (focused first) and password with the autocomplete hints password managers use. On
 * success the whole page loads `next` (a path already checked by safeNextPath; with this page's
 * `#fragment`, which the browser kept from the address that sent it here), so the console starts
 * with the new session; a 401 or 429 (with the wait in seconds) is shown above the form.
 */
export function LoginForm({ next }: { next: string }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const login = useMutation({
    mutationFn: (input: { email: string; password: string }) =>
      fetchJson<{ user: ConsoleUser }>("/api/v1/auth/login", { method: "POST", body: input }),
    // The fragment the browser kept across the redirect to here (a webhook's link to one approval's card) goes on.
    onSuccess: () => window.location.assign(next.includes("#") ? next : `${next}${window.location.hash}`),
  });
  const failure = login.isError ? failureMessage(login.error) : null;

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    login.mutate({ email: email.trim(), password });
  }

  return (
    <form onSubmit={submit} aria-labelledby="login-title" className="rounded-lg border border-zinc-200 bg-white p-5 shadow-xs">
      <h1 id="login-title" className="text-lg font-semibold text-zinc-900">
        Sign in
      </h1>
      {failure ? (
        <Alert tone="danger" title={failure.title} className="mt-3">
          {failure.text}
        </Alert>
      ) : null}
      <div className="mt-4 space-y-3">
        <div>
          <label htmlFor="login-email" className="mb-1 block text-sm font-medium text-zinc-800">
            Email
          </label>
          <Input
            id="login-email"
            name="email"
            type="email"
            autoComplete="username"
            autoFocus
            required
            value={email}
            onChange={(event) => setEmail(event.target.value)}
            invalid={failure !== null && isApiError(login.error, "unauthenticated")}
          />
        </div>
        <div>
          <label htmlFor="login-password" className="mb-1 block text-sm font-medium text-zinc-800">
            Password
          </label>
          <Input
            id="login-password"
            name="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(event) => setPassword(event.target.value)}
            invalid={failure !== null && isApiError(login.error, "unauthenticated")}
          />
        </div>
      </div>
      <Button type="submit" variant="primary" className="mt-5 w-full" pending={login.isPending || login.isSuccess}>
        Sign in
      </Button>
    </form>
  );
}
