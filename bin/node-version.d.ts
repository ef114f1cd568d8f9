/** Why this Node.js cannot run the gateway, or null when it can (bin/node-version.js). */
export function unsupportedNodeMessage(program: string, version?: string): string | null;
