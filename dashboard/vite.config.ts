import { defineConfig } from 'vite';

/**
 * The dashboard's build: `npm run build` (also run by `npm install`) writes dashboard/dist,
 * which the gateway serves at /dashboard. `npm run dashboard:dev` serves the sources with
 * hot reload and sends /v1 to a gateway on localhost:8080.
 */
export default defineConfig({
  base: '/dashboard/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // Everything as files: the page's Content-Security-Policy allows no inline code.
    assetsInlineLimit: 0,
  },
  server: {
    proxy: { '/v1': 'http://localhost:8080' },
    // The contract (../contract) is shared with the server.
    fs: { allow: ['..'] },
  },
});
