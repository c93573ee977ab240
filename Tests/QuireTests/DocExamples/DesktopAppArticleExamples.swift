import Foundation
import Quire

// The Swift example of the "A desktop app" article, word for word (see ArticleExamples); never called. The
// example's GLib call itself is compiled and tested in Examples/Notebook (GLibMainQueue, MainQueueTests).
enum DesktopAppArticleExamples {
    static func mainQueueSource() {
        let descriptor = MainQueueEventSource.fileDescriptor   // watch for input (G_IO_IN) in the main loop
        MainQueueEventSource.runPendingWork()                  // when it is readable: runs the main queue's blocks
        _ = descriptor
    }
}
