"use client";

import type { ReactNode } from "react";
import { Alert } from "@/components/ui/alert";
import { useIdentity } from "@/lib/client/identity";

/**
 * The shell of an admins-only page (Users, Secrets, Packs, Webhooks): `header` always; then `skeleton`
 * while who is signed in is unknown, "Admins only" with `refusal` for anyone else, or `children` for an
 * admin — mounted only then, so their queries never ask the server for what it would refuse.
 */
export function AdminOnly({ header, skeleton, refusal, children }: { header: ReactNode; skeleton: ReactNode; refusal: ReactNode; children: ReactNode }) {
  const identity = useIdentity();
  return (
    <>
      {header}
      {identity.isPending ? (
        skeleton
      ) : identity.data?.role !== "admin" ? (
        <Alert tone="info" title="Admins only">
          {refusal}
        </Alert>
      ) : (
        children
      )}
    </>
  );
}
