// GTK 4 and GLib's Unix additions (g_unix_fd_add, which GTK's header does not include).
#include <gtk/gtk.h>
#include <glib-unix.h>
