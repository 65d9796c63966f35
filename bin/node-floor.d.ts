/** Types of `node-floor.js` (plain JavaScript, so that any Node can run the launcher's check). */

/** The oldest Node that runs switchboard. */
export declare const NODE_FLOOR: string;

/** What the launcher must do on this Node. */
export type NodeSupport = { readonly kind: 'ok' } | { readonly kind: 'needs-flag' } | { readonly kind: 'too-old'; readonly message: string };

/** See `node-floor.js`. */
export declare function nodeSupport(version: string, features: { readonly typescript?: unknown }): NodeSupport;
