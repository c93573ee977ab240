// swift-tools-version:6.0
// Notebook: a GTK 4 document app on Quire (Examples/Notebook/README.md). A package of its own that depends on
// Quire by path, so that Quire itself never depends on GTK. `make example` (at the top of the repository) builds
// and runs it; `make example-test` runs its tests under Xvfb.
import PackageDescription

let package = Package(
    name: "Notebook",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "Quire", path: "../..")],
    targets: [
        // GTK 4 through pkg-config (Debian bookworm: libgtk-4-dev, GTK 4.8), never vendored.
        .systemLibrary(name: "CGtk", pkgConfig: "gtk4", providers: [.apt(["libgtk-4-dev"])]),
        // The document, its model and types, the import and the list feed: no GTK, tested on its own.
        .target(name: "NotebookKit", dependencies: [.product(name: "Quire", package: "Quire")]),
        // Dispatch's main queue run from GLib's main loop, for any GLib-based app (Quire's MainQueueEventSource
        // watched by g_unix_fd_add).
        .target(name: "GLibMainQueue", dependencies: ["CGtk", .product(name: "Quire", package: "Quire")]),
        // The application: GTK's C API called from Swift.
        .executableTarget(name: "notebook", dependencies: ["NotebookKit", "GLibMainQueue", "CGtk"], path: "Sources/Notebook"),
        // A GLib main loop without GTK's window, for the test of the main-queue source.
        .executableTarget(name: "main-queue-probe", dependencies: ["NotebookKit", "GLibMainQueue", "CGtk"]),
        .testTarget(name: "NotebookTests", dependencies: ["NotebookKit", "CGtk", .product(name: "Quire", package: "Quire")]),
    ],
    swiftLanguageModes: [.v6]
)
