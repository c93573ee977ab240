// swift-tools-version:6.0
// An application that uses Quire's SQLite store and nothing of PostgreSQL: scripts/check-no-libpq.sh builds it
// with libpq's pkg-config file hidden and checks that its executable does not link libpq. QUIRE_PATH names the
// Quire checkout it depends on.
import Foundation
import PackageDescription

let quire = ProcessInfo.processInfo.environment["QUIRE_PATH"] ?? "../.."

let package = Package(
    name: "NoLibPQApp",
    dependencies: [.package(name: "Quire", path: quire)],
    targets: [
        .executableTarget(name: "app", dependencies: [.product(name: "Quire", package: "Quire")])
    ],
    swiftLanguageModes: [.v6]
)
