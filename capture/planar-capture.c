/* planar-capture.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-capture.h"

#include <glib/gi18n-lib.h>

#include "planar-capture-response.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "planar-grpc.h"
#include "planar-parallel.h"
#include "planar-wire.h"
#include "profiler_service.pb-c.h"

#define SERVICE "/tensorflow.ProfilerService/"

G_DEFINE_QUARK (planar-capture-error-quark, planar_capture_error)

struct _PlanarCaptureSession
{
  GObject               parent_instance;

  PlanarCaptureOptions *options;
  GStrv                 addresses;
  PlanarCaptureHost    *hosts;
  guint                 n_hosts;
  char                 *folder;
  char                 *session_id;
  char                 *repository_root;
  /* Guards @hosts while workers update them. */
  GMutex                lock;
  GCancellable         *cancellable;
  GMainContext         *context;
};

G_DEFINE_FINAL_TYPE (PlanarCaptureSession, planar_capture_session, G_TYPE_OBJECT)

enum
{
  SIGNAL_HOST_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* ------------------------------------------------------------------------
 * Files
 * ------------------------------------------------------------------------ */

/* Bytes written between two looks at the cancellable. */
#define WRITE_CHUNK (8 << 20)

/* Writes @data to @dir/@name through a hidden temporary file in @dir,
 * linked into place; never replaces an existing file. A cancel between
 * two chunks removes the temporary file (%G_IO_ERROR_CANCELLED). Other
 * failures are %G_IO_ERROR, with the code errno gives. */
static gboolean
write_new_file (const char    *dir,
                const char    *name,
                const guint8  *data,
                gsize          len,
                GCancellable  *cancellable,
                char         **path_out,
                GError       **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *template = g_strdup_printf ("%s/.%s.XXXXXX", dir, name);
  int fd;
  gsize done = 0;

  if (g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS, _("%s already exists"), path);
      return FALSE;
    }
  fd = g_mkstemp_full (template, O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), _("Cannot write in %s: %s"), dir,
                   g_strerror (saved));
      return FALSE;
    }
  while (done < len)
    {
      ssize_t n;

      if (g_cancellable_is_cancelled (cancellable))
        {
          close (fd);
          g_unlink (template);
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, _("Cancelled while writing %s"), path);
          return FALSE;
        }
      n = write (fd, data + done, MIN (len - done, WRITE_CHUNK));
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          int saved = n < 0 ? errno : ENOSPC;

          close (fd);
          g_unlink (template);
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), _("Cannot write %s: %s"), path,
                       g_strerror (saved));
          return FALSE;
        }
      done += (gsize) n;
    }
  if (fsync (fd) != 0 || close (fd) != 0 || link (template, path) != 0)
    {
      int saved = errno;

      g_unlink (template);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), _("Cannot write %s: %s"), path,
                   g_strerror (saved));
      return FALSE;
    }
  /* link() refuses to replace: the rename that never overwrites. */
  g_unlink (template);
  if (path_out != NULL)
    *path_out = g_steal_pointer (&path);
  return TRUE;
}

gboolean
planar_capture_write_new_file (const char    *dir,
                               const char    *name,
                               const guint8  *data,
                               gsize          len,
                               char         **path_out,
                               GError       **error)
{
  return write_new_file (dir, name, data, len, NULL, path_out, error);
}

/* A hidden temporary of write_new_file() or g_file_set_contents():
 * ".NAME.XXXXXX", six letters or digits after the last dot. */
static gboolean
is_temporary_name (const char *name)
{
  gsize len = strlen (name);

  if (name[0] != '.' || len < 9 || name[len - 7] != '.')
    return FALSE;
  for (gsize i = len - 6; i < len; i++)
    if (!g_ascii_isalnum (name[i]))
      return FALSE;
  return TRUE;
}

/* Temporaries older than this were left by a capture that died (the age
 * the index cache's eviction uses too); a younger one may be another
 * capture's, still being written. */
#define STALE_AGE_S 3600

/* Removes the temporary files that captures killed on the way left in
 * the session folders under @repository_root, and a session folder that
 * this leaves empty. Only regular files untouched for STALE_AGE_S. */
static void
remove_stale_temporaries (const char *repository_root)
{
  g_autoptr(GDir) root = g_dir_open (repository_root, 0, NULL);
  const char *session;
  time_t now = time (NULL);

  while (root != NULL && (session = g_dir_read_name (root)) != NULL)
    {
      g_autofree char *folder = g_build_filename (repository_root, session, NULL);
      g_autoptr(GDir) d = NULL;
      const char *name;
      gboolean removed = FALSE;
      GStatBuf st;

      if (g_lstat (folder, &st) != 0 || !S_ISDIR (st.st_mode))
        continue;
      d = g_dir_open (folder, 0, NULL);
      while (d != NULL && (name = g_dir_read_name (d)) != NULL)
        {
          g_autofree char *path = NULL;

          if (!is_temporary_name (name))
            continue;
          path = g_build_filename (folder, name, NULL);
          if (g_lstat (path, &st) == 0 && S_ISREG (st.st_mode) && st.st_mtime + STALE_AGE_S < now
              && g_unlink (path) == 0)
            removed = TRUE;
        }
      /* A folder of nothing but a dead capture's temporaries goes too. */
      if (removed)
        g_rmdir (folder);
    }
}

/* A new session folder under @repository_root, named for now (the next
 * free second when taken). */
char *
planar_capture_make_session_folder (const char  *repository_root,
                                    char       **session_id,
                                    GError     **error)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();

  if (g_mkdir_with_parents (repository_root, 0755) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), _("Cannot make %s: %s"), repository_root,
                   g_strerror (saved));
      return NULL;
    }
  for (guint i = 0; i < 120; i++)
    {
      g_autoptr(GDateTime) when = g_date_time_add_seconds (now, i);
      g_autofree char *name = g_date_time_format (when, "%Y_%m_%d_%H_%M_%S");
      g_autofree char *path = g_build_filename (repository_root, name, NULL);

      if (g_mkdir (path, 0755) == 0)
        {
          *session_id = g_steal_pointer (&name);
          return g_steal_pointer (&path);
        }
      if (errno != EEXIST)
        {
          int saved = errno;

          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), _("Cannot make %s: %s"), path,
                       g_strerror (saved));
          return NULL;
        }
    }
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS, _("No free session name under %s"), repository_root);
  return NULL;
}

/* "10.0.0.1_6009" for "10.0.0.1:6009": the file name XProf's client
 * gives a host. */
static char *
host_file_stem (const char *address)
{
  char *stem = g_strdup (address);

  g_strdelimit (stem, ":/[]", '_');
  return stem;
}

/* ------------------------------------------------------------------------
 * Responses
 * ------------------------------------------------------------------------ */

typedef PlanarCaptureResponse Response;
typedef PlanarCaptureToolData ToolData;

static gboolean
parse_response (GBytes    *bytes,
                Response  *out,
                GError   **error)
{
  gsize len = 0;
  const guint8 *data = g_bytes_get_data (bytes, &len);

  return planar_capture_response_parse (data, len, out, error);
}

/* Longest file name written: NAME_MAX less the temporary's ".NAME.XXXXXX". */
#define MAX_FILE_NAME (255 - 8)

/* @data as text for people, at most @max bytes of it: printable ASCII and
 * valid UTF-8 kept, every other byte \xNN. */
static char *
printable (const guint8 *data,
           gsize         len,
           gsize         max)
{
  GString *out = g_string_new (NULL);
  const char *p = (const char *) data;
  const char *end;

  /* A tool_data entry without a name has no bytes at all. */
  if (len == 0)
    return g_string_free (out, FALSE);
  end = p + len;
  while (p < end && out->len < max)
    {
      gunichar c = g_utf8_get_char_validated (p, end - p);

      if (c == (gunichar) -1 || c == (gunichar) -2 || c < 0x20 || (c >= 0x7f && c < 0xa0) || c == '\\')
        {
          g_string_append_printf (out, "\\x%02x", (guint8) *p);
          p++;
        }
      else
        {
          const char *next = g_utf8_next_char (p);

          g_string_append_len (out, p, next - p);
          p = next;
        }
    }
  if (p < end)
    g_string_append (out, "…");
  return g_string_free (out, FALSE);
}

/* The part of a file name a tool_data entry's name gives, or NULL when
 * nothing safe is left of it: path separators and the "." and ".."
 * components go (the parts left are joined by '_'), control characters,
 * NUL and bytes that are no UTF-8 become '_', leading dots go (a hidden
 * name would pass for a temporary), and a name too long for the file
 * system keeps its head and its extension. A name that would make the
 * file pass for another host's profile (*.xplane.pb) gets ".tool". */
static char *
tool_file_part (const guint8 *name,
                gsize         len,
                gsize         room)
{
  GString *out = g_string_new (NULL);
  gsize i = 0;
  char *text;
  const char *p;

  while (i < len)
    {
      gsize start = i, n;

      while (i < len && name[i] != '/' && name[i] != '\\')
        i++;
      n = i - start;
      i++;
      if (n == 0 || (n == 1 && name[start] == '.') || (n == 2 && name[start] == '.' && name[start + 1] == '.'))
        continue;
      if (out->len > 0)
        g_string_append_c (out, '_');
      for (gsize k = start; k < start + n; k++)
        g_string_append_c (out, name[k] < 0x20 || name[k] == 0x7f ? '_' : (char) name[k]);
    }
  /* Bytes that are no UTF-8 become '_' too. */
  for (p = out->str; !g_utf8_validate (p, out->str + out->len - p, &p);)
    *(char *) p = '_';
  while (out->len > 0 && out->str[0] == '.')
    g_string_erase (out, 0, 1);
  if (out->len == 0)
    {
      g_string_free (out, TRUE);
      return NULL;
    }
  if (strcmp (out->str, "xplane.pb") == 0 || g_str_has_suffix (out->str, ".xplane.pb"))
    g_string_append (out, ".tool");
  if (out->len > room)
    {
      /* The extension (".json.gz"), when short, and as much of the head
       * as fits, cut on a character's boundary. */
      const char *dot = strchr (out->str + MAX (out->len, 16) - 16, '.');
      g_autofree char *ext = g_strdup (dot != NULL ? dot : "");
      gsize keep = room - strlen (ext) - 1;

      while (keep > 0 && (out->str[keep] & 0xc0) == 0x80)
        keep--;
      g_string_truncate (out, keep);
      g_string_append_c (out, '~');
      g_string_append (out, ext);
    }
  text = g_string_free (out, FALSE);
  return text;
}

/* Saves the tool_data entries of @response beside the host's profile
 * @xspace_path, each under "<stem>.<name>" (made safe, made unique by a
 * number: "<stem>.2.<name>"), never replacing a file. Never fails: what
 * was renamed, skipped or could not be written is appended to @notes. */
static void
save_tools (const char   *folder,
            const char   *stem,
            Response     *response,
            const guint8 *xspace,
            gsize         xspace_len,
            GCancellable *cancellable,
            GString      *notes)
{
  /* Room for "<stem>.", a number and the name. */
  gsize room = MAX_FILE_NAME - MIN (strlen (stem), MAX_FILE_NAME - 64) - 5;

  for (guint i = 0; i < response->tools->len; i++)
    {
      const ToolData *tool = &g_array_index (response->tools, ToolData, i);
      g_autofree char *shown = printable (tool->name_data, tool->name_len, 60);
      g_autofree char *part = NULL;
      g_autofree char *name = NULL;
      g_autofree char *path = NULL;
      g_autoptr(GError) error = NULL;

      if (g_cancellable_is_cancelled (cancellable))
        {
          g_string_append_printf (notes, "%sthe capture was cancelled before the rest of its tool data was saved",
                                  notes->len > 0 ? "; " : "");
          return;
        }
      /* The profile itself again (legacy servers send it as tool
       * "xplane.pb"): saved once. */
      if (tool->data == xspace && tool->len == xspace_len)
        continue;
      if (tool->len == xspace_len && xspace_len > 0 && memcmp (tool->data, xspace, xspace_len) == 0)
        {
          g_string_append_printf (notes, "%stool data “%s” is the profile itself: not saved twice",
                                  notes->len > 0 ? "; " : "", shown);
          continue;
        }
      part = tool_file_part (tool->name_data, tool->name_len, room);
      if (part == NULL)
        {
          g_string_append_printf (notes, "%stool data “%s” was not saved: its name cannot be made a safe file name",
                                  notes->len > 0 ? "; " : "", shown);
          continue;
        }
      name = g_strconcat (stem, ".", part, NULL);
      for (guint n = 2; n < 1000; n++)
        {
          g_autofree char *candidate = g_build_filename (folder, name, NULL);
          GStatBuf st;

          if (g_lstat (candidate, &st) != 0)
            break;
          g_free (name);
          name = g_strdup_printf ("%s.%u.%s", stem, n, part);
        }
      if (!write_new_file (folder, name, tool->data, tool->len, cancellable, &path, &error))
        {
          g_string_append_printf (notes, "%stool data “%s” was not saved: %s", notes->len > 0 ? "; " : "", shown,
                                  error->message);
          continue;
        }
      if (tool->name_len != strlen (tool->name) || !g_str_has_prefix (name, stem)
          || name[strlen (stem)] != '.' || strcmp (name + strlen (stem) + 1, tool->name) != 0)
        g_string_append_printf (notes, "%stool data “%s” saved as %s", notes->len > 0 ? "; " : "", shown, name);
    }
}

/* The XSpace of @response: ProfileResponse.xspace, or else the tool_data
 * entry "xplane.pb" of servers from before emit_xspace that were asked
 * for that tool. */
static gboolean
response_xspace (Response      *response,
                 const guint8 **data,
                 gsize         *len)
{
  if (response->has_xspace && response->xspace_len > 0)
    {
      *data = response->xspace;
      *len = response->xspace_len;
      return TRUE;
    }
  for (guint i = 0; i < response->tools->len; i++)
    {
      const ToolData *tool = &g_array_index (response->tools, ToolData, i);

      if (tool->len > 0 && tool->name_len == strlen ("xplane.pb")
          && memcmp (tool->name_data, "xplane.pb", tool->name_len) == 0
          && planar_capture_response_check_xspace (tool->data, tool->len, NULL))
        {
          *data = tool->data;
          *len = tool->len;
          return TRUE;
        }
    }
  return FALSE;
}

/* Writes what came back for one host into @folder: the XSpace first, and
 * only when it is one; then its tool data, whose trouble never fails the
 * host but is told in @notes. */
static gboolean
save_response (const char    *folder,
               const char    *address,
               Response      *response,
               GCancellable  *cancellable,
               char         **path,
               GString       *notes,
               GError       **error)
{
  g_autofree char *stem = host_file_stem (address);
  g_autofree char *name = g_strconcat (stem, ".xplane.pb", NULL);
  g_autoptr(GError) local = NULL;
  const guint8 *xspace = NULL;
  gsize xspace_len = 0;

  if (!response_xspace (response, &xspace, &xspace_len))
    {
      g_set_error_literal (error, PLANAR_CAPTURE_ERROR, PLANAR_CAPTURE_ERROR_FAILED, _("The answer holds no profile"));
      return FALSE;
    }
  if (!planar_capture_response_check_xspace (xspace, xspace_len, &local))
    {
      g_autofree char *head = printable (xspace, MIN (xspace_len, 32), 32);

      g_set_error (error, PLANAR_CAPTURE_ERROR, PLANAR_CAPTURE_ERROR_FAILED,
                   _("%s sent a profile that is no XSpace (%s; it starts “%s”): nothing was saved"), address,
                   local->message, head);
      return FALSE;
    }
  if (!write_new_file (folder, name, xspace, xspace_len, cancellable, path, error))
    return FALSE;
  save_tools (folder, stem, response, xspace, xspace_len, cancellable, notes);
  return TRUE;
}

/* ------------------------------------------------------------------------
 * Hosts
 * ------------------------------------------------------------------------ */

typedef struct
{
  PlanarCaptureSession *self;
  guint                 index;
} Notify;

static gboolean
emit_host_changed (gpointer data)
{
  Notify *n = data;

  g_signal_emit (n->self, signals[SIGNAL_HOST_CHANGED], 0, n->index);
  return G_SOURCE_REMOVE;
}

static void
notify_free (Notify *n)
{
  g_object_unref (n->self);
  g_free (n);
}

/* Updates host @index under the lock and tells the main context. */
static void
set_host (PlanarCaptureSession   *self,
          guint                   index,
          PlanarCaptureHostState  state,
          guint                   attempt,
          gint64                  end_time,
          guint64                 bytes,
          const char             *path,
          const char             *message)
{
  PlanarCaptureHost *host = &self->hosts[index];

  g_mutex_lock (&self->lock);
  host->state = state;
  host->attempt = attempt;
  host->end_time = end_time;
  host->bytes = bytes;
  if (path != host->path)
    {
      g_free (host->path);
      host->path = g_strdup (path);
    }
  if (message != host->message)
    {
      g_free (host->message);
      host->message = g_strdup (message);
    }
  g_mutex_unlock (&self->lock);

  if (self->context != NULL)
    {
      Notify *n = g_new (Notify, 1);
      GSource *source = g_idle_source_new ();

      n->self = g_object_ref (self);
      n->index = index;
      g_source_set_callback (source, emit_host_changed, n, (GDestroyNotify) notify_free);
      g_source_attach (source, self->context);
      g_source_unref (source);
    }
}

/* What a profiler server answers (INTERNAL) while a profiling session,
 * of any client, is running there: it allows one at a time. */
#define SERVER_BUSY "Another profiling session active"

static gboolean
server_busy (PlanarGrpcStatus  status,
             const char       *details)
{
  return status != PLANAR_GRPC_OK && details != NULL && strstr (details, SERVER_BUSY) != NULL;
}

/* Failures tried again within the retries. A busy server is asked again
 * on a time budget of its own (capture_host()). */
static gboolean
retryable (PlanarGrpcStatus  status,
           const char       *details)
{
  return status == PLANAR_GRPC_UNAVAILABLE || status == PLANAR_GRPC_ALREADY_EXISTS
         || (status == PLANAR_GRPC_UNKNOWN && details != NULL && strstr (details, "Stream removed") != NULL);
}

/* A sentence for people about a failed call. */
static char *
describe_failure (const char       *address,
                  PlanarGrpcStatus  status,
                  const char       *raw_details,
                  gint64            deadline_ms)
{
  /* The server's text, on one line: its control characters (a newline
   * too) escaped, so that it cannot pass for lines of Planar's own. */
  g_autofree char *details = raw_details != NULL ? printable ((const guint8 *) raw_details, strlen (raw_details), 2000)
                                                 : NULL;

  if (server_busy (status, raw_details))
    return g_strdup_printf (_("%s is already profiling: another capture, or one that was stopped early, runs there "
                              "until its duration ends"), address);
  switch (status)
    {
    case PLANAR_GRPC_UNAVAILABLE:
      if (details != NULL && (strstr (details, "onnection refused") != NULL || strstr (details, "failed to connect") != NULL))
        return g_strdup_printf ("%s refused the connection: no profiler server listens there "
                                "(start one with jax.profiler.start_server(port))", address);
      return g_strdup_printf ("%s is unavailable (%s)", address, details != NULL && details[0] ? details : "no answer");
    case PLANAR_GRPC_DEADLINE_EXCEEDED:
      return g_strdup_printf ("%s did not answer within %" G_GINT64_FORMAT " ms", address, deadline_ms);
    case PLANAR_GRPC_UNIMPLEMENTED:
      return g_strdup_printf ("%s does not offer tensorflow.ProfilerService/Profile: is it a profiler server?",
                              address);
    case PLANAR_GRPC_CANCELLED:
      return g_strdup_printf ("The capture from %s was cancelled", address);
    case PLANAR_GRPC_NOT_LOADED:
      /* Nothing reached the server: say what is missing here. */
      return g_strdup_printf ("%s was not asked: %s (Planar needs gRPC's C library, libgrpc, to capture)",
                              address, details != NULL ? details : "no reason given");
    default:
      return g_strdup_printf ("%s answered %s%s%s", address, planar_grpc_status_name (status),
                              details != NULL && details[0] ? ": " : "", details != NULL ? details : "");
    }
}

/* "1 s", "1.5 s": a deadline for people. */
static char *
format_seconds (gint64 ms)
{
  if (ms % 1000 == 0)
    return g_strdup_printf ("%" G_GINT64_FORMAT " s", ms / 1000);
  return g_strdup_printf ("%.1f s", (double) ms / 1000.0);
}

/* Sleeps @ms unless cancelled first. */
static void
sleep_cancellable (GCancellable *cancellable,
                   guint         ms)
{
  for (guint waited = 0; waited < ms && !g_cancellable_is_cancelled (cancellable); waited += 20)
    g_usleep (20 * 1000);
}

/* How long a cancelled capture waits for a server to take its Terminate,
 * and then leaves the Profile call to end by itself before cancelling it
 * (the server looks for a stop every millisecond). */
#define TERMINATE_ON_CANCEL_MS 2000
#define CANCEL_GRACE_MS        200

/* Asks @address to end the profiling session @session_id now (Terminate):
 * its Profile call then answers with what was recorded so far, and the
 * server is free for the next capture. Waits at most @deadline_ms. */
static PlanarGrpcStatus
send_terminate (const char  *address,
                const char  *session_id,
                gint64       deadline_ms,
                char       **details)
{
  Tensorflow__TerminateRequest request = TENSORFLOW__TERMINATE_REQUEST__INIT;
  gsize size;
  g_autofree guint8 *buffer = NULL;
  g_autoptr(GBytes) bytes = NULL;

  request.session_id = (char *) session_id;
  size = tensorflow__terminate_request__get_packed_size (&request);
  buffer = g_malloc (MAX (size, 1));
  tensorflow__terminate_request__pack (&request, buffer);
  bytes = g_bytes_new (buffer, size);
  return planar_grpc_call (address, SERVICE "Terminate", bytes, deadline_ms, NULL, NULL, details);
}

/* A Profile call that is cancelled first ends the server's session: a
 * server keeps profiling for the whole duration when the call it serves
 * goes away, and refuses every other capture until then. */
typedef struct
{
  const char       *address;
  const char       *session_id;
  gboolean          asked;
  PlanarGrpcStatus  status;
  char             *details;
} TerminateOnCancel;

static void
terminate_on_cancel (gpointer data)
{
  TerminateOnCancel *t = data;

  t->asked = TRUE;
  t->status = send_terminate (t->address, t->session_id, TERMINATE_ON_CANCEL_MS, &t->details);
}

/* Host @index's capture, on a thread of its own from planar-parallel:
 * failures are the host's state, never the pool's. */
static gboolean
capture_host (guint          index,
              gpointer       data,
              GCancellable  *cancellable,
              GError       **pool_error)
{
  PlanarCaptureSession *self = data;
  const char *address = self->addresses[index];
  guint n = g_strv_length (self->addresses);
  guint retries = 0, failures = 0;
  guint busy_wait_ms = 0, busy_waited_ms = 0;
  guint duration_ms = 0;
  guint delay_ms = planar_capture_options_get_effective_delay_ms (self->options, n);
  gint64 deadline_ms = planar_capture_options_get_deadline_ms (self->options, n);
  g_autofree char *last_failure = NULL;
  g_autofree char *cancel_message = NULL;

  g_object_get (self->options, "retries", &retries, "busy-wait-ms", &busy_wait_ms, "duration-ms", &duration_ms, NULL);
  for (guint attempt = 1;; attempt++)
    {
      g_autoptr(GBytes) request = NULL;
      g_autoptr(GBytes) response_bytes = NULL;
      g_autofree char *details = NULL;
      guint64 start_ns = delay_ms > 0 ? (guint64) (g_get_real_time () + (gint64) delay_ms * 1000) * 1000 : 0;
      PlanarGrpcStatus status;
      PlanarGrpcProbe probe;
      Response response;
      g_autoptr(GError) error = NULL;
      g_autofree char *path = NULL;
      const guint8 *xspace = NULL;
      gsize xspace_len = 0;

      if (g_cancellable_is_cancelled (self->cancellable))
        break;

      /* A plain look first, bounded by the capture's own deadline, so that
       * a listener that is no profiler server is named as such, at once,
       * and is not retried as if it were one starting up. */
      probe = planar_grpc_probe (address, deadline_ms, self->cancellable, &details);
      if (probe == PLANAR_GRPC_PROBE_CANCELLED)
        break;
      if (probe == PLANAR_GRPC_PROBE_REFUSED)
        status = PLANAR_GRPC_UNAVAILABLE;
      else if (probe == PLANAR_GRPC_PROBE_SILENT || probe == PLANAR_GRPC_PROBE_NOT_HTTP2
               || probe == PLANAR_GRPC_PROBE_NO_CONNECTION)
        {
          g_autofree char *seconds = format_seconds (deadline_ms);

          g_free (last_failure);
          if (probe == PLANAR_GRPC_PROBE_SILENT)
            last_failure = g_strdup_printf ("%s connected, no answer within %s: it is not a profiler server, or it "
                                            "hangs", address, seconds);
          else if (probe == PLANAR_GRPC_PROBE_NO_CONNECTION)
            last_failure = g_strdup_printf ("%s did not accept the connection within %s", address, seconds);
          else
            last_failure = g_strdup_printf ("%s connected, but it does not speak gRPC (%s): it is not a profiler "
                                            "server", address, details != NULL ? details : "no HTTP/2");
          set_host (self, index, PLANAR_CAPTURE_HOST_FAILED, attempt, 0, 0, NULL, last_failure);
          return TRUE;
        }
      else
        {
          TerminateOnCancel stop = { address, self->session_id, FALSE, PLANAR_GRPC_OK, NULL };

          if (g_cancellable_is_cancelled (self->cancellable))
            break;
          g_clear_pointer (&details, g_free);
          set_host (self, index, PLANAR_CAPTURE_HOST_PROFILING, attempt,
                    g_get_real_time () + ((gint64) delay_ms + duration_ms) * 1000, 0, NULL, NULL);
          request = planar_capture_options_build_request (self->options, address, self->repository_root,
                                                          self->session_id, start_ns);
          status = planar_grpc_call_full (address, SERVICE "Profile", request, deadline_ms, self->cancellable,
                                          terminate_on_cancel, &stop, CANCEL_GRACE_MS, &response_bytes, &details);
          if (stop.asked && stop.status != PLANAR_GRPC_OK)
            {
              g_autofree char *why = describe_failure (address, stop.status, stop.details, TERMINATE_ON_CANCEL_MS);

              cancel_message = g_strdup_printf (_("Cancelled, but the server could not be told to stop (%s): it may "
                                                  "refuse other captures until this one's duration ends"), why);
            }
          g_free (stop.details);
        }
      if (g_cancellable_is_cancelled (self->cancellable))
        break;
      if (status != PLANAR_GRPC_OK)
        {
          g_free (last_failure);
          last_failure = probe == PLANAR_GRPC_PROBE_REFUSED
                         ? g_strdup_printf ("%s refused the connection: no profiler server listens there "
                                            "(start one with jax.profiler.start_server(port))", address)
                         : describe_failure (address, status, details, deadline_ms);
          /* A busy server refuses before it starts anything, so asking
           * again costs it nothing. The session holding it is most often
           * one just told to stop (a cancelled capture's): a real server
           * keeps it while it collects what it recorded, which takes
           * seconds (about 0.4 s per second recorded, for JAX on a GPU). */
          if (server_busy (status, details) && busy_waited_ms + PLANAR_CAPTURE_BUSY_PAUSE_MS <= busy_wait_ms)
            {
              g_autofree char *waited = NULL;
              g_autofree char *budget = format_seconds (busy_wait_ms);
              g_autofree char *note = NULL;

              busy_waited_ms += PLANAR_CAPTURE_BUSY_PAUSE_MS;
              waited = format_seconds (busy_waited_ms);
              note = g_strdup_printf ("%s; asking again (%s of %s)", last_failure, waited, budget);
              set_host (self, index, PLANAR_CAPTURE_HOST_CONNECTING, attempt + 1, 0, 0, NULL, note);
              sleep_cancellable (self->cancellable, PLANAR_CAPTURE_BUSY_PAUSE_MS);
              continue;
            }
          if (retryable (status, details) && failures < retries)
            {
              g_autofree char *note = NULL;

              failures++;
              note = g_strdup_printf ("%s; trying again (%u of %u)", last_failure, failures + 1, retries + 1);
              set_host (self, index, PLANAR_CAPTURE_HOST_CONNECTING, attempt + 1, 0, 0, NULL, note);
              sleep_cancellable (self->cancellable, MIN (250 * failures, 2000));
              continue;
            }
          if (server_busy (status, details) && busy_waited_ms > 0)
            {
              g_autofree char *waited = format_seconds (busy_waited_ms);
              char *longer = g_strdup_printf ("%s (still after %s)", last_failure, waited);

              g_free (last_failure);
              last_failure = longer;
            }
          set_host (self, index, PLANAR_CAPTURE_HOST_FAILED, attempt, 0, 0, NULL, last_failure);
          return TRUE;
        }

      set_host (self, index, PLANAR_CAPTURE_HOST_RECEIVING, attempt, 0, g_bytes_get_size (response_bytes), NULL, NULL);
      if (!parse_response (response_bytes, &response, &error))
        {
          set_host (self, index, PLANAR_CAPTURE_HOST_FAILED, attempt, 0, 0, NULL, error->message);
          return TRUE;
        }
      if (response_xspace (&response, &xspace, &xspace_len))
        {
          g_autoptr(GString) notes = g_string_new (NULL);

          if (save_response (self->folder, address, &response, self->cancellable, &path, notes, &error))
            set_host (self, index, PLANAR_CAPTURE_HOST_SAVED, attempt, 0, xspace_len, path,
                      notes->len > 0 ? notes->str : NULL);
          else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            set_host (self, index, PLANAR_CAPTURE_HOST_CANCELLED, attempt, 0, 0, NULL, "Cancelled");
          else
            set_host (self, index, PLANAR_CAPTURE_HOST_FAILED, attempt, 0, 0, NULL, error->message);
        }
      else if (response.empty_trace || response.has_xspace)
        set_host (self, index, PLANAR_CAPTURE_HOST_FAILED, attempt, 0, 0, NULL,
                  "The profiler recorded nothing: the program did no work during the capture, a tracer could not "
                  "start (enable “raise error on start failure” to see why), or another capture was running");
      else
        {
          /* OK, not empty, no XSpace: a server from before emit_xspace,
           * which wrote the file on its own machine. */
          g_autofree char *stem = host_file_stem (address);
          g_autofree char *remote = g_strdup_printf ("%s/%s/%s.xplane.pb", self->repository_root, self->session_id, stem);
          g_autofree char *message = g_strdup_printf ("The server is older than Planar's way of getting the profile "
                                                      "back: it saved it on its own machine as %s", remote);

          set_host (self, index, PLANAR_CAPTURE_HOST_SAVED_REMOTELY, attempt, 0, 0, remote, message);
        }
      g_array_unref (response.tools);
      return TRUE;
    }
  if (g_cancellable_is_cancelled (self->cancellable))
    set_host (self, index, PLANAR_CAPTURE_HOST_CANCELLED, self->hosts[index].attempt, 0, 0, NULL,
              cancel_message != NULL ? cancel_message : "Cancelled");
  return TRUE;
}

static gboolean
run (PlanarCaptureSession  *self,
     GError               **error)
{
  g_autoptr(GString) reasons = g_string_new (NULL);
  guint saved = 0;
  g_autofree char *logdir = NULL;

  g_object_get (self->options, "logdir", &logdir, NULL);
  self->repository_root = g_build_filename (logdir, "plugins", "profile", NULL);
  remove_stale_temporaries (self->repository_root);
  self->folder = planar_capture_make_session_folder (self->repository_root, &self->session_id, error);
  if (self->folder == NULL)
    return FALSE;

  for (guint i = 0; i < self->n_hosts; i++)
    set_host (self, i, PLANAR_CAPTURE_HOST_CONNECTING, 1, 0, 0, NULL, NULL);
  /* Every host at once, a thread each (this one included): they record
   * over the same seconds. Only a cancel fails the pool, and run() says
   * that itself below. */
  planar_parallel_run_threads (self->n_hosts, self->n_hosts, NULL, capture_host, self, self->cancellable, NULL);
  /* A host the cancel kept from starting is cancelled too. */
  for (guint i = 0; i < self->n_hosts; i++)
    if (self->hosts[i].state == PLANAR_CAPTURE_HOST_CONNECTING)
      set_host (self, i, PLANAR_CAPTURE_HOST_CANCELLED, self->hosts[i].attempt, 0, 0, NULL, "Cancelled");

  /* A host's profile is the first file written for it and is in place
   * before the host is SAVED; tool data follows it. So the files in the
   * folder are those of saved hosts (temporaries are removed as they are
   * given up), and what is saved stays, cancelled or not. */
  for (guint i = 0; i < self->n_hosts; i++)
    {
      g_mutex_lock (&self->lock);
      if (self->hosts[i].state == PLANAR_CAPTURE_HOST_SAVED)
        saved++;
      else
        {
          const char *message = self->hosts[i].message != NULL ? self->hosts[i].message : "no profile";
          gsize n = strlen (self->hosts[i].address);

          /* Most messages name their host first already. */
          if (strncmp (message, self->hosts[i].address, n) == 0 && message[n] == ' ')
            g_string_append_printf (reasons, "\n%s", message);
          else
            g_string_append_printf (reasons, "\n%s: %s", self->hosts[i].address, message);
        }
      g_mutex_unlock (&self->lock);
    }
  /* Only removed when empty: what someone else wrote there stays. */
  if (saved == 0)
    g_rmdir (self->folder);
  if (g_cancellable_is_cancelled (self->cancellable))
    {
      if (saved == 0)
        g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                             _("The capture was cancelled; nothing was kept"));
      else
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                     g_dngettext (GETTEXT_PACKAGE,
                                  "The capture was cancelled; kept the %u of %u host saved before it, in %s",
                                  "The capture was cancelled; kept the %u of %u hosts saved before it, in %s",
                                  self->n_hosts),
                     saved, self->n_hosts, self->folder);
      return FALSE;
    }
  if (saved == 0)
    {
      g_set_error (error, PLANAR_CAPTURE_ERROR, PLANAR_CAPTURE_ERROR_FAILED, _("No profile was captured:%s"),
                   reasons->str);
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------------
 * The object
 * ------------------------------------------------------------------------ */

static void
planar_capture_session_finalize (GObject *object)
{
  PlanarCaptureSession *self = PLANAR_CAPTURE_SESSION (object);

  for (guint i = 0; i < self->n_hosts; i++)
    {
      g_free (self->hosts[i].address);
      g_free (self->hosts[i].path);
      g_free (self->hosts[i].message);
    }
  g_free (self->hosts);
  g_strfreev (self->addresses);
  g_free (self->folder);
  g_free (self->session_id);
  g_free (self->repository_root);
  g_clear_object (&self->options);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (planar_capture_session_parent_class)->finalize (object);
}

static void
planar_capture_session_class_init (PlanarCaptureSessionClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = planar_capture_session_finalize;

  /* Host @index moved on (see planar_capture_session_get_host()). */
  signals[SIGNAL_HOST_CHANGED] = g_signal_new ("host-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                               NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
}

static void
planar_capture_session_init (PlanarCaptureSession *self)
{
  g_mutex_init (&self->lock);
  self->cancellable = g_cancellable_new ();
}

/* A copy, so that the dialog may go on editing its options. */
static PlanarCaptureOptions *
copy_options (PlanarCaptureOptions *options)
{
  PlanarCaptureOptions *copy = planar_capture_options_new ();
  static const char * const names[] = {
    "addresses", "logdir", "duration-ms", "host-tracer-level", "device-tracer-level", "python-tracer-level",
    "retries", "busy-wait-ms", "delay-ms", "deadline-floor-ms", "raise-error-on-start-failure",
  };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      GValue value = G_VALUE_INIT;

      g_object_get_property (G_OBJECT (options), names[i], &value);
      g_object_set_property (G_OBJECT (copy), names[i], &value);
      g_value_unset (&value);
    }
  for (guint i = 0; i < planar_capture_options_get_n_options (options); i++)
    {
      const char *key, *value;
      PlanarCaptureValueType type;

      planar_capture_options_get_option (options, i, &key, &type, &value);
      planar_capture_options_set_option (copy, key, type, value);
    }
  return copy;
}

PlanarCaptureSession *
planar_capture_session_new (PlanarCaptureOptions  *options,
                            GError               **error)
{
  g_autoptr(PlanarCaptureSession) self = NULL;

  g_return_val_if_fail (PLANAR_IS_CAPTURE_OPTIONS (options), NULL);

  if (!planar_capture_options_validate (options, error))
    return NULL;
  self = g_object_new (PLANAR_TYPE_CAPTURE_SESSION, NULL);
  self->options = copy_options (options);
  self->addresses = planar_capture_options_dup_addresses (self->options, error);
  self->n_hosts = g_strv_length (self->addresses);
  self->hosts = g_new0 (PlanarCaptureHost, self->n_hosts);
  for (guint i = 0; i < self->n_hosts; i++)
    self->hosts[i].address = g_strdup (self->addresses[i]);
  return g_steal_pointer (&self);
}

guint
planar_capture_session_get_n_hosts (PlanarCaptureSession *self)
{
  g_return_val_if_fail (PLANAR_IS_CAPTURE_SESSION (self), 0);
  return self->n_hosts;
}

const PlanarCaptureHost *
planar_capture_session_get_host (PlanarCaptureSession *self,
                                 guint                 index)
{
  g_return_val_if_fail (PLANAR_IS_CAPTURE_SESSION (self), NULL);
  g_return_val_if_fail (index < self->n_hosts, NULL);
  return &self->hosts[index];
}

const char *
planar_capture_session_get_folder (PlanarCaptureSession *self)
{
  g_return_val_if_fail (PLANAR_IS_CAPTURE_SESSION (self), NULL);
  return self->folder;
}

gboolean
planar_capture_session_run (PlanarCaptureSession  *self,
                            GError               **error)
{
  g_return_val_if_fail (PLANAR_IS_CAPTURE_SESSION (self), FALSE);
  return run (self, error);
}

static void
run_thread (GTask        *task,
            gpointer      source,
            gpointer      task_data,
            GCancellable *cancellable)
{
  GError *error = NULL;

  if (run (PLANAR_CAPTURE_SESSION (source), &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

void
planar_capture_session_run_async (PlanarCaptureSession *self,
                                  GAsyncReadyCallback   callback,
                                  gpointer              user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (PLANAR_IS_CAPTURE_SESSION (self));

  self->context = g_main_context_ref_thread_default ();
  task = g_task_new (self, NULL, callback, user_data);
  g_task_run_in_thread (task, run_thread);
}

gboolean
planar_capture_session_run_finish (PlanarCaptureSession  *self,
                                   GAsyncResult          *result,
                                   GError               **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* Asks host @index to stop recording; the answer does not matter (a
 * server that went away has stopped too). */
static gboolean
terminate_host (guint          index,
                gpointer       data,
                GCancellable  *cancellable,
                GError       **error)
{
  PlanarCaptureSession *self = data;

  send_terminate (self->addresses[index], self->session_id, 10000, NULL);
  return TRUE;
}

/* In GLib's task pool, so that the caller never waits: every host asked
 * at once, through planar-parallel. */
static void
terminate_thread (GTask        *task,
                  gpointer      source,
                  gpointer      task_data,
                  GCancellable *cancellable)
{
  GArray *indexes = task_data;

  planar_parallel_run_threads (indexes->len, indexes->len, (const guint *) indexes->data, terminate_host, source,
                               NULL, NULL);
  g_task_return_boolean (task, TRUE);
}

void
planar_capture_session_stop_now (PlanarCaptureSession *self)
{
  g_autoptr(GArray) indexes = NULL;
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (PLANAR_IS_CAPTURE_SESSION (self));

  if (self->session_id == NULL)
    return;
  indexes = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < self->n_hosts; i++)
    {
      gboolean profiling;

      g_mutex_lock (&self->lock);
      profiling = self->hosts[i].state == PLANAR_CAPTURE_HOST_PROFILING;
      g_mutex_unlock (&self->lock);
      if (profiling)
        g_array_append_val (indexes, i);
    }
  if (indexes->len == 0)
    return;
  /* The task holds the session until every answer is in. */
  task = g_task_new (self, NULL, NULL, NULL);
  g_task_set_source_tag (task, planar_capture_session_stop_now);
  g_task_set_task_data (task, g_steal_pointer (&indexes), (GDestroyNotify) g_array_unref);
  g_task_run_in_thread (task, terminate_thread);
}

void
planar_capture_session_cancel (PlanarCaptureSession *self)
{
  g_return_if_fail (PLANAR_IS_CAPTURE_SESSION (self));
  g_cancellable_cancel (self->cancellable);
}

/* ------------------------------------------------------------------------
 * Continuous profiling
 * ------------------------------------------------------------------------ */

/* Calls the first of @methods the server knows (UNIMPLEMENTED moves on). */
static gboolean
call_first (const char  *address,
            const char  *const *methods,
            GBytes      *request,
            GBytes     **response,
            GError     **error)
{
  PlanarGrpcStatus status = PLANAR_GRPC_UNIMPLEMENTED;
  g_autofree char *details = NULL;

  for (guint i = 0; methods[i] != NULL && status == PLANAR_GRPC_UNIMPLEMENTED; i++)
    {
      g_clear_pointer (&details, g_free);
      if (response != NULL)
        g_clear_pointer (response, g_bytes_unref);
      status = planar_grpc_call (address, methods[i], request, 60000, NULL, response, &details);
    }
  if (status != PLANAR_GRPC_OK)
    {
      g_autofree char *message = describe_failure (address, status, details, 60000);

      g_set_error_literal (error, PLANAR_CAPTURE_ERROR, PLANAR_CAPTURE_ERROR_FAILED,
                           status == PLANAR_GRPC_UNIMPLEMENTED
                           ? _("The server does not offer continuous profiling "
                               "(it needs a profiler from 2026 or later)")
                           : message);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_address (PlanarCaptureOptions  *options,
               const char            *address,
               char                 **normalized,
               GError               **error)
{
  g_autoptr(PlanarCaptureOptions) one = planar_capture_options_new ();
  g_auto(GStrv) addresses = NULL;

  g_object_set (one, "addresses", address, NULL);
  addresses = planar_capture_options_dup_addresses (one, error);
  if (addresses == NULL)
    return FALSE;
  if (addresses[1] != NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("Give one address"));
      return FALSE;
    }
  *normalized = g_strdup (addresses[0]);
  return TRUE;
}

gboolean
planar_capture_continuous_start (PlanarCaptureOptions  *options,
                                 const char            *address,
                                 GError               **error)
{
  static const char * const methods[] = { SERVICE "StartContinuousProfiling", SERVICE "ContinuousProfiling", NULL };
  g_autofree char *target = NULL;
  g_autoptr(GBytes) request = NULL;

  if (!check_address (options, address, &target, error))
    return FALSE;
  request = planar_capture_options_build_request (options, target, "", "", 0);
  return call_first (target, methods, request, NULL, error);
}

char *
planar_capture_continuous_snapshot (PlanarCaptureOptions  *options,
                                    const char            *address,
                                    GError               **error)
{
  static const char * const methods[] = { SERVICE "GetSnapshot", SERVICE "GetSnapShot", NULL };
  Tensorflow__GetSnapshotRequest request = TENSORFLOW__GET_SNAPSHOT_REQUEST__INIT;
  g_autofree char *target = NULL;
  g_autofree char *logdir = NULL;
  g_autofree char *root = NULL;
  g_autofree char *session_id = NULL;
  g_autofree char *folder = NULL;
  g_autoptr(GBytes) request_bytes = NULL;
  g_autoptr(GBytes) response_bytes = NULL;
  g_autofree guint8 *buffer = NULL;
  gsize size;
  Response response;
  const guint8 *xspace = NULL;
  gsize xspace_len = 0;
  char *path = NULL;
  g_autoptr(GString) notes = NULL;

  if (!check_address (options, address, &target, error))
    return NULL;
  g_object_get (options, "logdir", &logdir, NULL);
  if (logdir == NULL || logdir[0] == '\0')
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("Choose the log directory"));
      return NULL;
    }
  size = tensorflow__get_snapshot_request__get_packed_size (&request);
  buffer = g_malloc (MAX (size, 1));
  tensorflow__get_snapshot_request__pack (&request, buffer);
  request_bytes = g_bytes_new (buffer, size);
  if (!call_first (target, methods, request_bytes, &response_bytes, error))
    return NULL;
  if (!parse_response (response_bytes, &response, error))
    return NULL;
  if (!response_xspace (&response, &xspace, &xspace_len))
    {
      g_array_unref (response.tools);
      g_set_error_literal (error, PLANAR_CAPTURE_ERROR, PLANAR_CAPTURE_ERROR_FAILED,
                           _("The snapshot is empty: nothing was recorded since continuous profiling started"));
      return NULL;
    }
  root = g_build_filename (logdir, "plugins", "profile", NULL);
  folder = planar_capture_make_session_folder (root, &session_id, error);
  notes = g_string_new (NULL);
  if (folder == NULL || !save_response (folder, target, &response, NULL, &path, notes, error))
    {
      if (folder != NULL)
        g_rmdir (folder);
      g_array_unref (response.tools);
      return NULL;
    }
  g_array_unref (response.tools);
  return path;
}

gboolean
planar_capture_continuous_stop (PlanarCaptureOptions  *options,
                                const char            *address,
                                GError               **error)
{
  static const char * const methods[] = { SERVICE "StopContinuousProfiling", NULL };
  Tensorflow__StopContinuousProfilingRequest request = TENSORFLOW__STOP_CONTINUOUS_PROFILING_REQUEST__INIT;
  g_autofree char *target = NULL;
  g_autofree guint8 *buffer = NULL;
  g_autoptr(GBytes) bytes = NULL;
  gsize size;

  if (!check_address (options, address, &target, error))
    return FALSE;
  size = tensorflow__stop_continuous_profiling_request__get_packed_size (&request);
  buffer = g_malloc (MAX (size, 1));
  tensorflow__stop_continuous_profiling_request__pack (&request, buffer);
  bytes = g_bytes_new (buffer, size);
  return call_first (target, methods, bytes, NULL, error);
}
