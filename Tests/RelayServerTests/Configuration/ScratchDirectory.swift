import Foundation

/// A fresh directory under the system's temporary directory, removed by `remove()`.
struct ScratchDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "relay-config-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    @discardableResult
    func write(_ name: String, _ text: String, mode: Int = 0o644) throws -> String {
        let target = file(name)
        try FileManager.default.createDirectory(
            atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: target))
        try chmod(target, mode)
        return target
    }

    func read(_ name: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: file(name))) }

    func mode(_ name: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: file(name))
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    func chmod(_ path: String, _ mode: Int) throws {
        try FileManager.default.setAttributes([.posixPermissions: NSNumber(value: mode)], ofItemAtPath: path)
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
