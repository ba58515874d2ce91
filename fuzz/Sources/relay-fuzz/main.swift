import Foundation

// libFuzzer's driver, from the toolchain's `libclang_rt.fuzzer` (linked by `-sanitize=fuzzer`):
// it reads libFuzzer's own options from the command line and calls `fuzzOneInput` per input.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

_ = FuzzTarget.selected
var argumentCount = CommandLine.argc
var arguments = CommandLine.unsafeArgv
exit(runFuzzerDriver(&argumentCount, &arguments, { fuzzOneInput($0, $1) }))
