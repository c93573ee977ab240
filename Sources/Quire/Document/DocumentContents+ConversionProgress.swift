import Foundation

extension DocumentContents {
    /// How far a conversion (``DocumentContents/convert(to:container:storeType:mimeType:replacing:modelFile:willCopy:didCopy:progress:onProgress:)``)
    /// has got: the phase it is in, the objects copied and the bytes of the phase done.
    ///
    /// ```swift
    /// try source.convert(to: zipURL, container: .zipArchive, storeType: .xml, onProgress: { step in
    ///     print(step.phase.description, step.bytesDone, "of", step.bytesTotal)
    /// })
    /// ```
    public struct ConversionProgress: Sendable, Hashable {
        /// The steps of a conversion, in order (a store file output has no archive phase).
        public enum Phase: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
            /// Checking every row of the source against its model before anything is written.
            case verifying
            /// Copying the objects into the new store (external data files with them).
            case copyingStore
            /// Putting the store and its external data into the output's package or beside its store file.
            case copyingExternalData
            /// Writing the package into the zip or tar archive.
            case writingArchive
            /// Moving the result into place and flushing it to disk.
            case finishing

            /// The phase in words, for progress displays.
            public var description: String {
                switch self {
                case .verifying: return "verifying the source"
                case .copyingStore: return "copying the store"
                case .copyingExternalData: return "assembling the output"
                case .writingArchive: return "writing the archive"
                case .finishing: return "finishing"
                }
            }
        }

        /// The current phase.
        public var phase: Phase
        /// The objects copied so far.
        public var objectsCopied: Int
        /// The number of objects of the source.
        public var objectCount: Int
        /// The bytes of the phase done so far (the archive's members written, the external data carried over);
        /// 0 for phases counted in objects.
        public var bytesDone: Int64
        /// The bytes the phase handles in all; 0 when it is not counted in bytes.
        public var bytesTotal: Int64

        /// Creates a progress report.
        public init(phase: Phase, objectsCopied: Int = 0, objectCount: Int = 0, bytesDone: Int64 = 0, bytesTotal: Int64 = 0) {
            self.phase = phase
            self.objectsCopied = objectsCopied
            self.objectCount = objectCount
            self.bytesDone = bytesDone
            self.bytesTotal = bytesTotal
        }
    }
}
