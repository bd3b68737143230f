import type { Metadata } from "next";
import { UsersPage } from "@/components/users/users-page";

/** Page title. */
export const metadata: Metadata = { title: "Users" };

/** `/users` (admin): people, their roles, and creating a person. */
export default function Page() {
  return <UsersPage />;
}
