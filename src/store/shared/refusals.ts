// Reasons a store is not opened that are the operator's to resolve: the CLI tells them as a
// message, without a stack. Kept apart from the stores so the CLI names them without loading a
// database driver.

export class StoreRefusal extends Error {}

/** The schema cannot be brought to this Gantry's version now. */
export class SchemaError extends StoreRefusal {}

/** Another Gantry server is serving this embedded store. */
export class StoreInUseError extends StoreRefusal {}
