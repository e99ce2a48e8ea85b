// The build replaces this name with pkg/package.json's version, its one source.
declare const __KRAM_VERSION__: string;

/** The package's version, as in its package.json. */
export const VERSION: string = __KRAM_VERSION__;
