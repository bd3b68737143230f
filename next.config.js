/**
 * Next.js configuration. Native and process-spawning modules stay outside the server bundle so the
 * executor's execa and the SQLite driver load from node_modules as Node.js expects.
 * @type {import('next').NextConfig}
 */
const nextConfig = {
  // NEXT_DIST_DIR lets concurrent end-to-end runs in one checkout build and serve separate copies.
  distDir: process.env.NEXT_DIST_DIR || ".next",
  serverExternalPackages: ["better-sqlite3", "@prisma/adapter-better-sqlite3", "@prisma/client", "execa"],
  poweredByHeader: false,
};

module.exports = nextConfig;
