// swift-tools-version:6.0
// Quire's fuzz targets: one libFuzzer executable, `quire-fuzz`, whose reader is chosen by QUIRE_FUZZ_TARGET.
// A package of its own so the plain `swift build` of Quire never meets a target that links only with
// `-sanitize=fuzzer`. Build and run it with `make fuzz` (Docs/Testing.md).
import PackageDescription

let package = Package(
    name: "QuireFuzz",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "Quire", path: "..")],
    targets: [
        .target(name: "CFuzzer"),
        .executableTarget(name: "quire-fuzz", dependencies: ["CFuzzer", .product(name: "Quire", package: "Quire")]),
    ],
    swiftLanguageModes: [.v6]
)
