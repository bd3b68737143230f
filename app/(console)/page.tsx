import { redirect } from "next/navigation";

/** `/` is the skills list. */
export default function HomePage(): never {
  redirect("/skills");
}
