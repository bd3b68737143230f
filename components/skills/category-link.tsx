import Link from "next/link";
import { categoryHref } from "./filter-skills";

/** A skill's category as a link to the skills list filtered to it (the details cards of both kinds). */
export function CategoryLink({ category }: { category: string }) {
  return (
    <Link className="text-blue-700 hover:underline" href={categoryHref(category)} title={`Every skill in category ${category}`}>
      {category}
    </Link>
  );
}
