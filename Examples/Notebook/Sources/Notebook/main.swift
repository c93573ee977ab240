import CGtk
import Foundation
import GLibMainQueue
import NotebookKit

// Notebook: a GTK 4 document app on Quire. Top-level code runs on the main thread (the main actor), which then
// runs GLib's main loop in g_application_run until the last window closes.

// First of all, let GLib's loop run Dispatch's main queue (GLibMainQueue.swift): the list's changes and the
// import's progress are sent there.
GLibMainQueue.attach()
NotebookFormat.registerAll()
let application = NotebookApplication()
exit(application.run())
