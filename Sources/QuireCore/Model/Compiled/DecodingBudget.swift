import QuireSupport
import Foundation

/// The work one decoding pass may do, shared by every stage (the property-list reader, the archive resolver, the
/// model decoders, the predicate formatter and the conversion of archived values), so that an archive whose
/// references share objects many times over is refused early with ``CompiledModelError/limitExceeded(what:limit:)``
/// instead of being expanded without end.
///
/// Each object of an archive is decoded once and every reference to it shares the decoded value; what the
/// budget counts is the archive as if every reference were expanded: each reference to a shared object costs the
/// values and bytes of the whole object it reaches (``DecodingLimits/maximumResolvedValues``,
/// ``DecodingLimits/maximumExpandedSize``). A real model cache's expansion is a little larger than the archive
/// itself (its dictionary keys are shared strings); an input that refers to a 32 MiB data object a million times,
/// or nests a predicate that refers twice to the next level forty levels deep, is 2⁴⁰ or 32 TiB of it. A
/// deadline (``DecodingLimits/maximumDecodingTime``) bounds whatever the counts miss.
///
/// Not `Sendable`: one budget serves one decoding pass on one thread.
package final class DecodingBudget {
    /// The limits charged against.
    package let limits: DecodingLimits
    /// The values produced so far, every reference to a shared value counting it again.
    package private(set) var values = 0
    /// The bytes of strings and data produced so far, counted as ``values`` are.
    package private(set) var bytes = 0
    private let deadline: ContinuousClock.Instant
    private var sinceClockCheck = 0

    /// A budget for one pass, whose time starts now.
    package init(limits: DecodingLimits) {
        self.limits = limits
        deadline = ContinuousClock.now.advanced(by: limits.maximumDecodingTime)
    }

    /// Charges `values` values and `bytes` bytes.
    ///
    /// - Throws: ``CompiledModelError/limitExceeded(what:limit:)`` when either count passes its limit, or the
    ///   pass its time.
    @inline(__always)
    func charge(values: Int = 1, bytes: Int = 0) throws {
        let (totalValues, valuesOverflow) = self.values.addingReportingOverflow(values)
        let (totalBytes, bytesOverflow) = self.bytes.addingReportingOverflow(bytes)
        guard !valuesOverflow, totalValues <= limits.maximumResolvedValues else {
            throw CompiledModelError.limitExceeded(
                what: "values once its shared references are expanded", limit: limits.maximumResolvedValues)
        }
        guard !bytesOverflow, totalBytes <= limits.maximumExpandedSize else {
            throw CompiledModelError.limitExceeded(
                what: "bytes of strings and data once its shared references are expanded", limit: limits.maximumExpandedSize)
        }
        self.values = totalValues
        self.bytes = totalBytes
        sinceClockCheck &+= values
        if sinceClockCheck >= 4096 {
            sinceClockCheck = 0
            try checkTime()
        }
    }

    /// Checks the deadline.
    func checkTime() throws {
        guard ContinuousClock.now < deadline else {
            throw CompiledModelError.limitExceeded(
                what: "seconds of decoding", limit: Int(limits.maximumDecodingTime.components.seconds))
        }
    }
}
