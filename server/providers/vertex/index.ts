export { createVertexProvider, createVertexAdapter } from './vertex-provider';
export { createGoogleAccessTokens, type GoogleAccessTokens } from './google-access-token';
