/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
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
  ],
  // Migrations and the demo seed are read from disk at run time.
  outputFileTracingIncludes: { "/**": ["./prisma/migrations/**", "./prisma/seed/**"] },
};

export default nextConfig;
