/// The relay's tables, as a list of migrations.
///
/// - `documents`: every domain object (device, app, activity, alarm, channel, ...) as one JSON
///   document keyed by kind and id, with the columns the relay looks objects up by.
/// - `events`: the durable event log behind the stream; `seq` is the caller's global sequence
///   number and only ever grows.
/// - `pushes`: the push log, newest first by `id`.
/// - `meta`: small named values (clock state, keys, the next sequence number).
public enum StoreSchema {
    /// Every migration, oldest first. Append new steps; never edit a step that has shipped.
    public static let migrations: [Migration] = [
        Migration(
            version: 1,
            sql: """
                CREATE TABLE documents (
                    kind TEXT NOT NULL,
                    id TEXT NOT NULL,
                    device_id TEXT,
                    bundle_id TEXT,
                    state TEXT,
                    body BLOB NOT NULL,
                    PRIMARY KEY (kind, id)
                );
                CREATE INDEX documents_device ON documents (kind, device_id);
                CREATE INDEX documents_bundle ON documents (kind, bundle_id);

                CREATE TABLE events (
                    seq INTEGER PRIMARY KEY,
                    type TEXT NOT NULL,
                    at REAL NOT NULL,
                    device_id TEXT,
                    bundle_id TEXT,
                    activity_id TEXT,
                    alarm_id TEXT,
                    data BLOB NOT NULL
                );

                CREATE TABLE pushes (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    apns_id TEXT,
                    unique_id TEXT,
                    token TEXT,
                    channel_id TEXT,
                    bundle_id TEXT,
                    received_at REAL NOT NULL,
                    record BLOB NOT NULL
                );
                CREATE INDEX pushes_apns_id ON pushes (apns_id);
                CREATE INDEX pushes_unique_id ON pushes (unique_id);
                CREATE INDEX pushes_token ON pushes (token);
                CREATE INDEX pushes_channel ON pushes (channel_id);
                CREATE INDEX pushes_bundle ON pushes (bundle_id);

                CREATE TABLE meta (
                    key TEXT PRIMARY KEY,
                    value BLOB NOT NULL
                ) WITHOUT ROWID;
                """)
    ]

    /// The version a fully migrated file has.
    public static var latestVersion: Int32 { Int32(migrations.count) }
}
