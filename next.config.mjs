import { existsSync } from "node:fs";

// A node_modules restored from a cache skips postinstall, and the build would stop at "Can't resolve
// './generated/client'". Say what to run instead (npm run build and npm start generate it first).
if (!existsSync(new URL("./server/db/generated/client.ts", import.meta.url))) {
  throw new Error("The Prisma client is not generated (server/db/generated is missing). Run `npm run db:generate`, then build again.");
}

/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  experimental: {
    // proxy.ts runs before every route, and Next.js buffers a request's body for it up to this size,
    // cutting the rest off without a word (default 10 MB). Above the largest body a route accepts
    // (30 MB: MAX_TRPC_BODY_BYTES, MAX_PROPOSAL_BODY_BYTES) with a margin of more than one chunk, so
    // a route sees enough of a larger body to answer 413 itself (server/trpc/body-limit.test.ts).
    proxyClientMaxBodySize: 31 * 1_048_576,
  },
  // Database drivers and WebAssembly engines load their own files at run time: keep them out of the bundle.
  serverExternalPackages: [
    "@electric-sql/pglite",
    "pglite-prisma-adapter",
    "@prisma/client",
    "@prisma/adapter-pg",
    "@prisma/driver-adapter-utils",
    "@prisma/schema-engine-wasm",
    "pg",
    "gpt-tokenizer",
    // A native module (argon2 password hashing).
    "@node-rs/argon2",
  ],
  // Migrations and the demo seed are read from disk at run time.
  outputFileTracingIncludes: { "/**": ["./prisma/migrations/**", "./prisma/seed/**"] },
  // Pages and routes get their security headers from proxy.ts; the build's static files, which it
  // skips, get theirs here.
  async headers() {
    return [{ source: "/_next/static/:path*", headers: [{ key: "X-Content-Type-Options", value: "nosniff" }] }];
  },
};

export default nextConfig;
