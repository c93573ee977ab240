// swift-tools-version:6.0
import CompilerPluginSupport
import PackageDescription

let package = Package(
    name: "Quire",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "Quire", targets: ["Quire"]),
        // The PostgreSQL store kind, in a product of its own so that an application that does not use it never
        // links libpq: `import QuirePostgres` and use `StoreType.postgres`.
        .library(name: "QuirePostgres", targets: ["QuirePostgres"]),
        .library(name: "QuireTestSupport", targets: ["QuireTestSupport"]),
        .executable(name: "quire", targets: ["quire"]),
        .executable(name: "quire-bench", targets: ["quire-bench"]),
    ],
    // Package.resolved is not checked in, so these say what a build resolves to (README, "Versions"): the
    // argument parser exactly, as the quire tool's help and usage text come from it; collections from the
    // version the suite runs with, so that applications can share one copy of OrderedCollections with Quire.
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        // The `@ManagedProperty` macro (Core Data's `@NSManaged`, usable in extensions) is built with swift-syntax.
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.0"),
    ],
    targets: [
        // System libraries, never vendored: found through pkg-config, installed from Debian's packages.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .systemLibrary(
            name: "CArchive",
            pkgConfig: "libarchive",
            providers: [.apt(["libarchive-dev"]), .brew(["libarchive"])]
        ),
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        // What Swift cannot reach directly: extended attributes, renameat2, directory fsync.
        .target(name: "CQuireSupport"),
        // The layers, top down: Quire (contexts, coordinator, migration, documents, the registry of store kinds)
        // uses QuireSQLite (the SQLite store kind), which uses QuireStores (the other store kinds and the shared SQL
        // layer, with no C library), which uses QuireCore (models, queries and the contract between coordinator and store), which
        // uses QuireSupport (errors, property lists, file helpers).
        // Each target imports only those below it, so an arrow against the layers does not compile.
        // The leaf: the error type, property lists and file helpers; it knows nothing of models or stores.
        .target(name: "QuireSupport", dependencies: ["CQuireSupport"]),
        .target(
            name: "QuireCore",
            dependencies: [
                "QuireSupport",
                "CQuireSupport",
                "CZlib",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        // The store kinds and the shared SQL layer, with no C library: SQLite is in a target of its own.
        .target(
            name: "QuireStores",
            dependencies: ["QuireSupport", "QuireCore", "CQuireSupport"]
        ),
        // The SQLite store kind (the SQLite engine of the shared SQL layer), on SQLite's C library. Quire links
        // it and registers its kind as a built-in one.
        .target(
            name: "QuireSQLite",
            dependencies: ["QuireSupport", "QuireCore", "QuireStores", "CSQLite", "CQuireSupport"]
        ),
        // The PostgreSQL store kind, beside the layers rather than in them: it uses QuireStores (Core Data's
        // table layout, the predicate compiler, the row reader), Quire (the registry of store kinds) and libpq;
        // nothing in Quire names it. Its store
        // type registers the kind with the store registry when first used.
        .target(
            name: "QuirePostgres",
            dependencies: ["QuireSupport", "QuireCore", "QuireStores", "Quire", "CLibPQ"]
        ),
        .target(
            name: "Quire",
            dependencies: [
                "QuireSupport",
                "QuireCore",
                "QuireStores",
                "QuireSQLite",
                "CArchive",
                "CQuireSupport",
                "QuireMacros",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        // The compiler plug-in of `@ManagedProperty`, which the Quire target declares.
        .macro(
            name: "QuireMacros",
            dependencies: [
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ]
        ),
        .target(name: "QuireTestSupport", dependencies: ["Quire"]),
        // The PostgreSQL contention harness (the tests and quire-crash-worker share it); not a product, so
        // QuireTestSupport stays free of libpq.
        .target(name: "QuirePostgresTestSupport", dependencies: ["Quire", "QuirePostgres"]),
        .executableTarget(
            name: "quire",
            dependencies: [
                "Quire",
                "QuirePostgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "quire-bench", dependencies: ["Quire", "QuireSQLite", "QuirePostgres", "QuireTestSupport", "CSQLite", "CLibPQ"]),
        // The child process the document crash test kills at random moments.
        .executableTarget(name: "quire-crash-worker", dependencies: ["Quire", "QuirePostgres", "QuireTestSupport", "QuirePostgresTestSupport"]),
        .testTarget(
            name: "QuireTests", dependencies: [
                "Quire", "QuireSQLite", "QuirePostgres", "QuireTestSupport", "QuirePostgresTestSupport", "CSQLite", "CArchive", "CZlib",
            ],
            resources: [.copy("Fixtures")]),
        .testTarget(name: "QuireTestSupportTests", dependencies: ["QuireTestSupport", "Quire"]),
    ],
    swiftLanguageModes: [.v6]
)
