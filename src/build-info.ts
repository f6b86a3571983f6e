// What this helper was built from (docs/status.md#updates): the version and the
// checksum of the build's inputs, as scripts/build.mjs wrote them into
// dist/built-from; "unbuilt" when running from the sources (tests of src/).
declare const __FLEET_BUILT_FROM__: string;

export const BUILT_FROM: string = typeof __FLEET_BUILT_FROM__ === 'string' ? __FLEET_BUILT_FROM__ : 'unbuilt';

/** The global option where the running supervisor says which build it is: `<pid> <built-from>`. */
export const SUPERVISOR_BUILD_OPTION = '@fleet-supervisor-build';
