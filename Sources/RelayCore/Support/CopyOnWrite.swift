/// A struct's stored members kept behind one reference, copied on the first change made while
/// the reference is shared: the storage of `Array`, for a struct of our own.
///
/// For values that are copied often on the push path and hold many references (strings, JSON,
/// arrays), here and in the modules built on RelayCore: copying such a struct retains every
/// reference it holds, and releasing the copy releases each again. Behind one box, a copy is one
/// retain and one release, whatever the value holds. Reads borrow the boxed value; they copy only
/// the member they return.
public struct CopyOnWrite<Value: Sendable>: @unchecked Sendable {
    // Unchecked: the box is changed only through `value`'s `_modify`, which first makes it unique
    // to this copy, so no box is ever changed while another copy (or thread) can see it.
    //
    // Inlinable, so that other modules (the store's records) specialize it for their values: a
    // generic class's metadata is otherwise looked up at run time for every box they make
    // (`swift_getGenericMetadata`, ~500 instructions, four times per push on an event loop).
    @usableFromInline
    final class Box {
        @usableFromInline var value: Value

        @usableFromInline
        init(_ value: Value) { self.value = value }
    }

    @usableFromInline var box: Box

    @inlinable
    public init(_ value: Value) { box = Box(value) }

    /// The members: borrowed when read, copied out of a shared box before a change.
    @inlinable
    public var value: Value {
        _read { yield box.value }
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.value) }
            yield &box.value
        }
    }

    /// Whether both hold the same box (and so, without comparing, the same value).
    @inlinable
    public func isIdentical(to other: CopyOnWrite) -> Bool { box === other.box }
}

extension CopyOnWrite: Equatable where Value: Equatable {
    public static func == (lhs: CopyOnWrite, rhs: CopyOnWrite) -> Bool {
        lhs.isIdentical(to: rhs) || lhs.value == rhs.value
    }
}

extension CopyOnWrite: Hashable where Value: Hashable {
    public func hash(into hasher: inout Hasher) { hasher.combine(value) }
}
