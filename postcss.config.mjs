// Tailwind 4 runs as a single PostCSS plugin; it finds class names in the source on its own.
const config = {
  plugins: {
    "@tailwindcss/postcss": {},
  },
};

export default config;
