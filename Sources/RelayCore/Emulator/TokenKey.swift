/// A token as the key of the emulator's token table: equal when the whole text is.
///
/// Update and push-to-start tokens alike; a provider's push looks its token up by the lowercase
/// hex `APNsDeviceToken.parse` checked.
struct TokenKey: Hashable, Sendable {
    let text: String

    init(_ text: String) { self.text = text }
}
