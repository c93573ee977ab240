import CGtk
import Foundation

/// A small modal window with a message and buttons (GTK 4.8's GtkMessageDialog is made with variadic C
/// functions, which Swift cannot call).
@MainActor
enum Alert {
    /// The buttons of the alert on screen, by label without mnemonic marks ("Revert"): what the `alert-button`
    /// app action presses, as a user clicking it would (tests use it over D-Bus).
    private static var buttonsOnScreen: [String: Widget] = [:]

    /// Presses a button of the alert on screen (its label without the `_`); returns whether there was one.
    @discardableResult
    static func press(_ label: String) -> Bool {
        guard let button = buttonsOnScreen[label] else { return false }
        // Emits "clicked", exactly as a click or the keyboard does.
        return gtk_widget_activate(button) != 0
    }

    /// Shows the alert; each button runs its closure, then the alert closes.
    static func show(parent: UnsafeMutablePointer<GtkWindow>?, title: String, message: String, buttons: [(String, () -> Void)]) {
        let window = gtk_window_new()
        let asWindow: UnsafeMutablePointer<GtkWindow>? = cast(window)
        gtk_window_set_title(asWindow, title)
        gtk_window_set_modal(asWindow, 1)
        gtk_window_set_transient_for(asWindow, parent)
        gtk_window_set_destroy_with_parent(asWindow, 1)
        gtk_window_set_default_size(asWindow, 420, -1)
        let box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12)
        for side in [gtk_widget_set_margin_top, gtk_widget_set_margin_bottom, gtk_widget_set_margin_start, gtk_widget_set_margin_end] {
            side(box, 18)
        }
        let heading = gtk_label_new(title)
        gtk_widget_add_css_class(heading, "title-4")
        gtk_label_set_wrap(cast(heading), 1)
        gtk_box_append(cast(box), heading)
        let body = gtk_label_new(message)
        gtk_label_set_wrap(cast(body), 1)
        gtk_label_set_max_width_chars(cast(body), 60)
        gtk_box_append(cast(box), body)
        let row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6)
        gtk_widget_set_halign(row, GTK_ALIGN_END)
        buttonsOnScreen = [:]
        for (label, action) in buttons {
            let button = gtk_button_new_with_mnemonic(label)!
            buttonsOnScreen[label.replacingOccurrences(of: "_", with: "")] = button
            onSignal(button, "clicked") {
                buttonsOnScreen = [:]
                gtk_window_destroy(asWindow)
                action()
            }
            gtk_box_append(cast(row), button)
        }
        gtk_box_append(cast(box), row)
        gtk_window_set_child(asWindow, box)
        // Closed any way (a button, Escape, the window manager): its buttons are gone.
        onSignal(window, "destroy") { buttonsOnScreen = [:] }
        gtk_window_present(asWindow)
    }
}
