/** Tailwind CSS 4 through its PostCSS plugin (DESIGN.md stack). */
export default { plugins: { "@tailwindcss/postcss": {} } };
