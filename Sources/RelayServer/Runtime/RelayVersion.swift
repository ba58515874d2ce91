import RelayStore

/// What `activity-relay --version` prints: the release and the store schema it writes (a data
/// directory of a newer schema is not opened by an older binary).
package enum RelayVersion {
    /// The release, `major.minor.patch`.
    package static let current = "0.1.0"
    /// The schema version of the database this binary migrates to.
    package static var storeSchema: Int32 { StoreSchema.migrations.last?.version ?? 0 }
}
