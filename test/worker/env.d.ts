// Types `exports.default` of 'cloudflare:workers' in tests as the Worker's own entry module.
declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import('../../src/index.ts');
  }
}
